// RhodeCode (zerver/webhooks/rhodecode/view.py): pushes, in the topic "<repo> / <branch>";
// `branches` matched as a substring, as Zulip does.
import type { Wild } from "../payload";
import { nothing, posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";
import * as git from "../toolkit/git";

/** The pushed branch; a deleted branch is only named in its pseudo-commit ("delete_branch=>dev"). */
function branchOf(push: Wild): string {
	const branches = push.at("branches").list();
	if (branches.length) return branches[0].at("name").str();
	return push.at("commits").item(0).at("raw_id").str().split("=>")[1] ?? "";
}

function handle(req: WebhookRequest) {
	const event = req.payload().at("event");
	const name = event.at("name").str();
	if (name !== "repo-push") throw new UnsupportedEvent(name);
	const push = event.at("push");
	const branch = branchOf(push);
	const filter = req.param("branches");
	if (filter !== undefined && !filter.includes(branch)) return nothing();
	const commits = push
		.at("commits")
		.list()
		.map((c) => ({ name: c.at("author").str(), sha: c.at("raw_id").str(), url: c.at("url").str(), message: c.at("message").str() }));
	const content = git.pushCommitsMessage({ user: event.path("actor", "username").str(), compareUrl: null, branch, commits });
	return posts({ topic: git.topicWithBranch(event.path("repo", "repo_name").str(), branch), content, event: name });
}

export const rhodecode: Integration = { name: "rhodecode", displayName: "RhodeCode", handle };
