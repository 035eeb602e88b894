// The generic JSON integration (zerver/webhooks/json/view.py): any JSON object, posted as a code
// block in the topic "JSON", indented as Python's json.dumps(indent=2) writes it (non-ASCII
// characters escaped).
import { badRequest } from "../../../../shared/errors";
import { posts, type Integration, type WebhookRequest } from "../integration";

/** JSON.stringify with Python's ensure_ascii: every non-ASCII UTF-16 unit as \uXXXX. */
const asciiJson = (v: unknown) => JSON.stringify(v, null, 2).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

function handle(req: WebhookRequest) {
	const p = req.json();
	if (typeof p.value !== "object" || p.value === null || Array.isArray(p.value)) throw badRequest("payload is not a dict");
	return posts({ topic: "JSON", content: `\`\`\`json\n${asciiJson(p.value)}\n\`\`\`` });
}

export const json: Integration = { name: "json", displayName: "JSON", handle };
