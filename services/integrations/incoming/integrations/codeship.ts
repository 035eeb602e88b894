// Codeship (zerver/webhooks/codeship/view.py): a build's status, in the project's topic.
import { posts, type Integration, type WebhookRequest } from "../integration";

const STATUSES: Record<string, string> = { testing: "started", error: "failed", success: "succeeded" };

function handle(req: WebhookRequest) {
	const build = req.json().at("build");
	const status = build.at("status").str();
	const state = Object.hasOwn(STATUSES, status) ? STATUSES[status] : `has ${status} status`;
	const content = `[Build](${build.at("build_url").str()}) triggered by ${build.at("committer").str()} on ${build.at("branch").str()} branch ${state}.`;
	return posts({ topic: build.at("project_name").str(), content });
}

export const codeship: Integration = { name: "codeship", displayName: "Codeship", handle };
