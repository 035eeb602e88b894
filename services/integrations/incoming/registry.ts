// Every incoming webhook integration, by the name in its URL. One line each, in the order they
// were added: a new integration is its module in integrations/ and one line here.
import type { Integration } from "./integration";
import { github } from "./integrations/github";
import { gitlab } from "./integrations/gitlab";

export const INTEGRATIONS: Integration[] = [
	github,
	gitlab,
];

const byName = new Map<string, Integration>();
for (const i of INTEGRATIONS) for (const name of [i.name, ...(i.aliases ?? [])]) byName.set(name, i);

export const integrationNamed = (name: string): Integration | undefined => byName.get(name);
