// Semaphore (zerver/webhooks/semaphore/view.py): Semaphore Classic builds and deploys, and
// Semaphore 2.0 pipelines (pushes, pull requests, tags), in the topic "<project>/<branch>".
import type { Wild } from "../payload";
import { posts, type Integration, type WebhookRequest } from "../integration";
import { shortSha } from "../toolkit/git";

const summaryLine = (message: string) => message.split(/\r\n|\r|\n/)[0] ?? "";

function classic(p: Wild): [string, string, string, string] {
	const branch = p.at("branch_name").str();
	const project = p.at("project_name").str();
	const result = p.at("result").str();
	const event = p.at("event").str();
	const commit = p.at("commit");
	const id = commit.at("id").str();
	const commitLine = `* **Commit**: [${shortSha(id)}: ${summaryLine(commit.at("message").str())}](${commit.at("url").str()})\n* **Author**: ${commit.at("author_email").str()}`;
	let content: string;
	if (event === "build") content = `[Build ${p.at("build_number").int()}](${p.at("build_url").str()}) ${result}:\n${commitLine}`;
	else if (event === "deploy")
		content = `[Deploy ${p.at("number").int()}](${p.at("html_url").str()}) of [build ${p.at("build_number").int()}](${p.at("build_html_url").str()}) ${result}:\n${commitLine}\n* **Server**: ${p.at("server_name").str()}`;
	else content = `${event}: ${result}`;
	return [content, project, branch, event];
}

function isGithub(url: string): boolean {
	try {
		return new URL(url).hostname === "github.com";
	} catch {
		return false;
	}
}

function semaphore2(p: Wild): [string, string, string, string] {
	const repoUrl = p.path("repository", "url").str();
	const project = p.path("project", "name").str();
	const org = p.path("organization", "name").str();
	const author = p.path("revision", "sender", "login").str();
	const github = isGithub(repoUrl);
	const who = github ? `[${author}](https://github.com/${author})` : author;
	const head = `[${p.path("pipeline", "name").str()}](https://${org}.semaphoreci.com/workflows/${p.path("workflow", "id").str()}) pipeline **${p.path("pipeline", "result").str()}**`;
	const event = p.path("revision", "reference_type").str();
	const revision = p.at("revision");
	if (event === "branch") {
		const sha = revision.at("commit_sha").str();
		const branch = revision.path("branch", "name").str();
		const message = summaryLine(revision.at("commit_message").str());
		const commit = github ? `[(${shortSha(sha)})](${repoUrl}/commit/${sha}) ${message}` : `(${shortSha(sha)}) ${message}`;
		return [`${head}:\n* **Commit**: ${commit}\n* **Branch**: ${branch}\n* **Author**: ${who}`, project, branch, event];
	}
	if (event === "pull_request") {
		const pr = revision.at("pull_request");
		const branch = pr.at("branch_name").str();
		const number = pr.at("number").str();
		const title = pr.at("name").str();
		const line = github ? `[${title}](${repoUrl}/pull/${number})` : `${title} (#${number})`;
		return [`${head}:\n* **Pull request**: ${line}\n* **Branch**: ${branch}\n* **Author**: ${who}`, project, branch, event];
	}
	if (event === "tag") {
		const tag = revision.path("tag", "name").str();
		return [`${head}:\n* **Tag**: ${github ? `[${tag}](${repoUrl}/tree/${tag})` : tag}\n* **Author**: ${who}`, project, "", event];
	}
	return [`${head} for ${event} event`, project, "", event];
}

function handle(req: WebhookRequest) {
	const p = req.json();
	const [content, project, branch, event] = p.has("event") ? classic(p) : semaphore2(p);
	return posts({ topic: branch ? `${project}/${branch}` : project, content, event });
}

export const semaphore: Integration = { name: "semaphore", displayName: "Semaphore", handle };
