// Buildbot (zerver/webhooks/buildbot/view.py): builds started and finished, in the project's topic
// ("general" for none).
import { badRequest } from "../../../../shared/errors";
import { posts, type Integration, type WebhookRequest } from "../integration";

/** Buildbot's result codes (docs.buildbot.net, "Build Result Codes"). */
const RESULTS = ["success", "warnings", "failure", "skipped", "exception", "retry", "cancelled"];

function handle(req: WebhookRequest) {
	const p = req.payload();
	const topic = p.at("project").str() || "general";
	const event = p.at("event").str();
	const build = `Build [#${p.at("buildid").int()}](${p.at("url").str()})`;
	const name = p.at("buildername").str();
	let content: string;
	if (event === "new") content = `${build} for **${name}** started.`;
	else if (event === "finished") {
		const status = RESULTS[p.at("results").int()];
		if (status === undefined) throw badRequest(`Invalid ${p.at("results").name}`);
		content = `${build} (result: ${status}) for **${name}** finished.`;
	} else throw badRequest(`Invalid ${p.at("event").name}`);
	return posts({ topic, content, event });
}

export const buildbot: Integration = { name: "buildbot", displayName: "Buildbot", handle };
