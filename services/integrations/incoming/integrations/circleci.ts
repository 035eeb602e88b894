// CircleCI (zerver/webhooks/circleci/view.py): jobs and workflows completed, in the project's
// topic, with the commit (GitHub, Bitbucket or GitLab) that triggered the pipeline.
import type { Wild } from "../payload";
import { badRequest } from "../../../../shared/errors";
import { posts, type Integration, type WebhookRequest } from "../integration";
import { pyStr } from "../toolkit/common";
import { shortSha } from "../toolkit/git";

const STATUSES: Record<string, string> = { success: "has succeeded", failed: "has failed", canceled: "was canceled", unauthorized: "was unauthorized", error: "had an error" };

function commitDetails(pipeline: Wild): string {
	if (pipeline.has("vcs")) {
		const vcs = pipeline.at("vcs");
		const revision = vcs.at("revision").str();
		const id = shortSha(revision);
		const repoUrl = vcs.at("target_repository_url").str();
		const link = vcs.get("provider_name").value === "github" ? `${repoUrl}/commit/${revision}` : `${repoUrl}/commits/${revision}`;
		const branch = vcs.at("branch").strOrNull();
		const subject = vcs.path("commit", "subject").strOrNull();
		if (!subject) return branch ? `\nTriggered on \`${branch}\`'s HEAD on [${id}](${link}).\n` : `\nTriggered on the latest tag on [${id}](${link}).\n`;
		return `\nTriggered on [\`${id}: ${subject}\`](${link}) on branch \`${pyStr(branch)}\` by ${vcs.path("commit", "author", "name").str()}.\n`;
	}
	const gitlab = pipeline.path("trigger_parameters", "gitlab");
	const sha = gitlab.at("checkout_sha").str();
	const link = `${gitlab.at("web_url").str()}/-/commit/${sha}`;
	return `\nTriggered on [\`${shortSha(sha)}: ${gitlab.at("commit_title").str()}\`](${link}) on branch \`${gitlab.at("branch").str()}\` by ${gitlab.at("commit_author_name").str()}.\n`;
}

function body(p: Wild): string {
	const pipeline = p.at("pipeline");
	const number = pipeline.at("number").int();
	const details = commitDetails(pipeline);
	const type = p.at("type").oneOf(["job-completed", "workflow-completed"] as const);
	if (type === "job-completed") return `\nJob \`${p.path("job", "name").str()}\` within Pipeline #${number} ${pyStr(STATUSES[p.path("job", "status").str()])}.\n${details}\n`;
	const workflow = p.at("workflow");
	return `\nWorkflow [\`${workflow.at("name").str()}\`](${workflow.at("url").str()}) within Pipeline #${number} ${pyStr(STATUSES[workflow.at("status").str()])}.\n${details}\n`;
}

function handle(req: WebhookRequest) {
	const p = req.payload();
	const type = p.at("type").str();
	if (type === "ping") return posts({ topic: "Test event", content: `Webhook '${p.path("webhook", "name").str()}' test event successful.`, event: type });
	const content = body(p);
	const pipeline = p.at("pipeline");
	if (pipeline.has("trigger_parameters") && pipeline.path("trigger", "type").value !== "gitlab") throw badRequest("Projects using this version control system provider aren't supported");
	return posts({ topic: p.path("project", "name").str(), content, event: type });
}

export const circleci: Integration = { name: "circleci", displayName: "CircleCI", handle };
