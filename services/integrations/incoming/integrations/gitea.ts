// Gitea (zerver/webhooks/gitea/view.py): Gogs's view (gogs.ts) with the X-Gitea-Event header and
// Gitea's own pull request message (its branches under head/base, the assignee named).
import { gogsHandler, type FormatPullRequest } from "./gogs";
import type { Integration } from "../integration";
import * as git from "../toolkit/git";

const giteaPullRequest: FormatPullRequest = (p, includeTitle) => {
	const pr = p.at("pull_request");
	const merged = pr.at("merged").bool();
	const action = merged ? "merged" : p.at("action").str();
	const edited = action === "edited";
	const assignee = pr.at("assignee").truthy ? pr.path("assignee", "login").str() : null;
	return git.pullRequestMessage({
		user: merged ? pr.path("merged_by", "username").str() : pr.path("user", "username").str(),
		action,
		url: pr.at("html_url").str(),
		number: pr.at("number").int(),
		targetBranch: !edited && pr.has("head") ? pr.path("head", "ref").str() : null,
		baseBranch: !edited && pr.has("base") ? pr.path("base", "ref").str() : null,
		title: includeTitle ? pr.at("title").str() : null,
		assignee,
		assigneeUpdated: assignee,
	});
};

export const gitea: Integration = { name: "gitea", displayName: "Gitea", handle: gogsHandler("X-Gitea-Event", giteaPullRequest) };
