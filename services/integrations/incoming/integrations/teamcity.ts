// TeamCity (zerver/webhooks/teamcity/view.py), its legacy JSON payload: a build's result in the
// build's topic; a personal build goes as a direct message to the person who started it, when an
// account here matches their name (nothing is posted otherwise). Another payload format is a
// setup mistake: the bot's owner is told and the request succeeds.
import type { Wild } from "../payload";
import { nothing, notifyOwnerOnly, posts, type Integration, type WebhookRequest } from "../integration";

const wrongFormat = ({ botName, supportEmail }: { botName: string; supportEmail: string }) => `Hi there! Your bot ${botName} just received a TeamCity payload in a
format that Zulip doesn't recognize. This usually indicates a
configuration issue in your TeamCity webhook settings. Please make sure
that you set the **Payload Format** option to **Legacy Webhook (JSON)**
in your TeamCity webhook configuration. Contact ${supportEmail} if you
need further help!`;

function property(list: Wild, name: string): string | null {
	for (const prop of list.list()) if (prop.at("name").str() === name) return prop.at("value").str();
	return null;
}

function statusOf(build: Wild): string {
	const result = build.at("buildResult").str();
	const delta = build.at("buildResultDelta").str();
	const status = build.at("buildStatus").str();
	if (result === "success") return delta === "fixed" ? "has been fixed! :thumbs_up:" : "was successful! :thumbs_up:";
	if (result === "failure") return delta === "broken" ? `is broken with status ${status}! :thumbs_down:` : `is still broken with status ${status}! :thumbs_down:`;
	if (result === "running") return "has started.";
	return "";
}

async function handle(req: WebhookRequest) {
	const p = req.payload();
	if (!p.has("build")) return notifyOwnerOnly(wrongFormat);
	const build = p.at("build");
	const name = build.at("buildFullName").str();
	const url = build.at("buildStatusUrl").str();
	const content = `${name} build ${build.at("buildNumber").str()} ${statusOf(build)} See [changes](${url}&tab=buildChangesDiv) and [build log](${url}).`;
	const topic = build.has("branchDisplayName") ? `${name} (${build.at("branchDisplayName").str()})` : name;
	const properties = build.at("teamcityProperties");
	if (property(properties, "env.BUILD_IS_PERSONAL") !== "true") return posts({ topic, content });
	// A personal build: its author, by full name, else by TeamCity username.
	const fullName = build.at("triggeredBy").str().split(";")[0];
	const shortName = property(properties, "teamcity.build.triggeredBy.username");
	const guesses = shortName === null ? [fullName] : [fullName, shortName];
	const { by_guess } = await req.lookups.people([], guesses);
	const person = by_guess[fullName] ?? (shortName === null ? undefined : by_guess[shortName]);
	if (!person) return nothing();
	return posts({ topic, content: `Your personal build for ${content}`, directTo: person.user_id });
}

export const teamcity: Integration = { name: "teamcity", displayName: "TeamCity", handle };
