// GoCD (zerver/webhooks/gocd/view.py): a pipeline stage building or finished, in the topic
// "<pipeline> / <stage>", with the commit that triggered it and its jobs by result.
import type { Wild } from "../payload";
import { nothing, posts, type Integration, type WebhookRequest } from "../integration";
import { shortSha } from "../toolkit/git";

function commitDetails(pipeline: Wild): string {
	const cause = pipeline.at("build-cause").item(0);
	const git = cause.path("material", "git-configuration");
	const sha = shortSha(cause.at("modifications").item(0).at("revision").str());
	return `[\`${sha}\`](${git.at("url").str()}/commit/${sha}) on branch \`${git.at("branch").str()}\``;
}

function jobsDetails(stage: Wild): string {
	const byResult = new Map<string, string[]>();
	for (const job of stage.at("jobs").list()) {
		const result = job.at("result").str();
		byResult.set(result, [...(byResult.get(result) ?? []), `\`${job.at("name").str()}\``]);
	}
	return [...byResult].map(([result, names]) => `- **${result}**: ${names.join(", ")}\n`).join("");
}

function handle(req: WebhookRequest) {
	const p = req.json();
	if (p.at("type").str() !== "stage") return nothing();
	const pipeline = p.path("data", "pipeline");
	const stage = pipeline.at("stage");
	const name = `${pipeline.at("name").str()} / ${stage.at("name").str()}`;
	const status = stage.at("state").str().toLowerCase();
	const commit = commitDetails(pipeline);
	const started = stage.at("create-time").str();
	if (status === "building") return posts({ topic: name, content: `**Pipeline ${status}**: ${name}\n- **Commit**: ${commit}\n- **Started**: ${started}\n` });
	const emoji = stage.at("result").str() === "Passed" ? ":green_circle:" : ":red_circle:";
	const content = `${emoji} **Build ${status}**: ${name}\n- **Commit**: ${commit}\n- **Started**: ${started}\n- **Finished**: ${stage.at("last-transition-time").str()}\n${jobsDetails(stage)}`;
	return posts({ topic: name, content });
}

export const gocd: Integration = { name: "gocd", displayName: "Gocd", handle };
