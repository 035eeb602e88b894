// Travis CI (zerver/webhooks/travis/view.py): a build's result, JSON in the `payload` form field,
// in the topic "builds"; its type (push, pull_request) is the event only_events/exclude_events match.
import { posts, type Integration, type WebhookRequest } from "../integration";

const GOOD = new Set(["Passed", "Fixed"]);
const BAD = new Set(["Failed", "Broken", "Still Failing", "Errored", "Canceled"]);

function handle(req: WebhookRequest) {
	const p = req.jsonParam("payload");
	const status = p.at("status_message").str();
	const emoji = GOOD.has(status) ? ":thumbs_up:" : BAD.has(status) ? ":thumbs_down:" : status === "Pending" ? ":counterclockwise:" : `(No emoji specified for status '${status}'.)`;
	const content = `Author: ${p.at("author_name").str()}\nBuild status: ${status} ${emoji}\nDetails: [changes](${p.at("compare_url").str()}), [build log](${p.at("build_url").str()})`;
	return posts({ topic: "builds", content, event: p.at("type").str() });
}

export const travis: Integration = { name: "travis", displayName: "Travis", handle };
