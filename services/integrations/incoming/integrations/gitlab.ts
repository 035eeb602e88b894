// GitLab (zerver/webhooks/gitlab/view.py): the event is the X-GitLab-Event header ("System Hook"
// names it in the payload), refined by the object's action or noteable type. Pushes honour
// `branches`; `use_merge_request_title=false` leaves the title out of merge request topics; a URL
// `topic` puts titles into the messages and a link to the project in front of them.
import type { Wild } from "../payload";
import { nothing, posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";
import { pyTitle, shortMonthDate } from "../toolkit/common";
import * as git from "../toolkit/git";

type Body = (p: Wild, includeTitle: boolean) => string;

const repoName = (p: Wild) => (p.has("project") ? p.path("project", "name").str() : p.path("repository", "name").str());
const userName = (p: Wild) => p.at("user_name").str();
const issueUserName = (p: Wild) => p.path("user", "name").str();
const homepage = (p: Wild) => (p.has("project") ? p.path("project", "web_url").str() : p.path("repository", "homepage").str());
const branchName = (p: Wild) => p.at("ref").str().replaceAll("refs/heads/", "");
const tagName = (p: Wild) => p.at("ref").str().replaceAll("refs/tags/", "");
const objectUrl = (p: Wild) => p.path("object_attributes", "url").str();
const titleIf = (w: Wild, include: boolean) => (include ? w.at("title").str() : null);

function push(p: Wild): string {
	const after = p.get("after");
	if (after.truthy && after.str() === git.EMPTY_SHA) return git.removeBranchMessage(userName(p), branchName(p));
	const compareUrl = `${homepage(p)}/-/compare/${p.at("before").str()}...${p.at("after").str()}`;
	const commits = p.at("commits").list().map((c) => ({ name: c.path("author", "name").str(), sha: c.at("id").str(), message: c.at("message").str(), url: c.at("url").str() }));
	return git.pushCommitsMessage({ user: userName(p), compareUrl, branch: branchName(p), commits });
}

/** Assignees (or the one assignee) named by their full names. */
function assignees(p: Wild): git.Assignee[] {
	const list = p.get("assignees");
	const items = list.truthy ? list.list() : p.get("assignee").truthy ? [p.at("assignee")] : [];
	return items.map((a) => ({ username: a.at("name").str() }));
}

function issueCreated(p: Wild, includeTitle: boolean): string {
	const attrs = p.at("object_attributes");
	const description = attrs.get("description");
	const message = description.truthy ? description.str().replace(/<!--[\s\S]*?-->/g, "").trimEnd() : null;
	return git.issueMessage({ user: issueUserName(p), action: "created", url: objectUrl(p), number: attrs.at("iid").int(), message, assignees: assignees(p), title: titleIf(attrs, includeTitle) });
}

const issueEvent =
	(action: string): Body =>
	(p, includeTitle) =>
		git.issueMessage({ user: issueUserName(p), action, url: objectUrl(p), number: p.path("object_attributes", "iid").int(), title: titleIf(p.at("object_attributes"), includeTitle) });

const mergeRequestEvent =
	(action: string): Body =>
	(p, includeTitle) => {
		const mr = p.at("object_attributes");
		const merged = action === "merged";
		return git.pullRequestMessage({
			user: issueUserName(p),
			action,
			url: mr.at("url").str(),
			number: mr.at("iid").int(),
			targetBranch: merged ? mr.at("source_branch").str() : null,
			baseBranch: merged ? mr.at("target_branch").str() : null,
			type: "MR",
			title: titleIf(mr, includeTitle),
		});
	};

const mergeRequestOpenedOrUpdated =
	(action: string): Body =>
	(p, includeTitle) => {
		const mr = p.at("object_attributes");
		const created = action === "created";
		return git.pullRequestMessage({
			user: issueUserName(p),
			action,
			url: mr.at("url").str(),
			number: mr.at("iid").int(),
			targetBranch: created ? mr.at("source_branch").str() : null,
			baseBranch: created ? mr.at("target_branch").str() : null,
			message: mr.at("description").strOrNull(),
			assignees: assignees(p),
			type: "MR",
			title: titleIf(mr, includeTitle),
		});
	};

const mergeRequestUpdated: Body = (p, includeTitle) =>
	p.at("object_attributes").get("oldrev").truthy ? mergeRequestEvent("added commit(s) to")(p, includeTitle) : mergeRequestOpenedOrUpdated("updated")(p, includeTitle);

const commentAction = (p: Wild) => `[commented](${p.path("object_attributes", "url").str()}) on`;

const commentedCommit: Body = (p) => {
	const c = p.at("object_attributes");
	return git.commitCommentMessage(issueUserName(p), `[commented](${c.at("url").str()})`, p.path("commit", "url").str(), p.path("commit", "id").str(), c.at("note").str());
};

const commentedOn =
	(key: "merge_request" | "issue", type: string): Body =>
	(p, includeTitle) => {
		const target = p.at(key);
		return git.pullRequestMessage({
			user: issueUserName(p),
			action: commentAction(p),
			url: target.at("url").str(),
			number: target.at("iid").int(),
			message: p.path("object_attributes", "note").str(),
			type,
			title: titleIf(target, includeTitle),
		});
	};

/** A design comment's links: the issue number is only in the design's path ("designs/issue-1/x.png"). */
function designLinks(comment: Wild, repositoryUrl: string): { commentUrl: string; designUrl: string; designName: string } {
	const noteId = comment.at("id").int();
	const parts = comment.path("position", "new_path").str().split("/");
	if (parts.length !== 3) throw new Error("unexpected design path");
	const [, issueSubpath, designName] = parts;
	const designUrl = `${repositoryUrl}/-/issues/${issueSubpath.split("-").pop()}/designs/${designName}`;
	return { commentUrl: `${designUrl}#note_${noteId}`, designUrl, designName };
}

const commentedDesign: Body = (p) => {
	const comment = p.at("object_attributes");
	const { commentUrl, designUrl, designName } = designLinks(comment, p.path("repository", "homepage").str());
	return `${issueUserName(p)} [commented](${commentUrl}) on design [${designName}](${designUrl}):\n${git.quote(comment.at("note").str())}`;
};

const commentedSnippet: Body = (p, includeTitle) => {
	const snippet = p.at("snippet");
	// A snippet's URL is in payloads since GitLab 16.1.
	const url = snippet.has("url") ? snippet.at("url").str() : `${p.path("project", "web_url").str()}/-/snippets/${snippet.at("id").int()}`;
	return git.pullRequestMessage({
		user: issueUserName(p),
		action: commentAction(p),
		url,
		number: snippet.at("id").int(),
		message: p.path("object_attributes", "note").str(),
		type: "snippet",
		title: titleIf(snippet, includeTitle),
	});
};

const wikiPage =
	(action: string): Body =>
	(p) =>
		`${issueUserName(p)} ${action} [wiki page "${p.path("object_attributes", "title").str()}"](${p.path("object_attributes", "url").str()}).`;

const statusAction = (status: string, created: string) => (status === created ? "was created" : status === "running" ? "started" : `changed status to ${status}`);

const build: Body = (p) => `Build ${p.at("build_name").str()} from ${p.at("build_stage").str()} stage ${statusAction(p.at("build_status").str(), "created")}.`;

const testHook: Body = (p) => `Webhook for **${repoName(p)}** has been configured successfully! :tada:`;

const pipeline: Body = (p) => {
	const attrs = p.at("object_attributes");
	const action = statusAction(attrs.at("status").str(), "pending");
	const home = homepage(p);
	const id = attrs.at("id").int();
	let builds = "";
	for (const b of p.at("builds").list()) {
		const buildUrl = `${home}/-/jobs/${b.at("id").int()}`;
		const artifact = b.get("artifacts_file", {}).get("filename");
		const artifactLine = artifact.truthy ? `  * built artifact: *${artifact.str()}* [[Browse](${buildUrl}/artifacts/browse)|[Download](${buildUrl}/artifacts/download)]\n` : "";
		builds += `* [${b.at("name").str()}](${buildUrl}) - ${b.at("status").str()}\n${artifactLine}`;
	}
	return `[Pipeline (${id})](${home}/-/pipelines/${id}) ${action} with build(s):\n${builds.slice(0, -1)}.`;
};

const release: Body = (p) => {
	const action = `${p.at("action").str()}d`;
	const name = p.at("name").str();
	const tag = p.at("tag").str();
	if (action === "deleted") return `Release ${name} for tag ${tag} was ${action}.`;
	let body = `Release [${name}](${p.at("url").str()}) for tag ${tag} was ${action}.`;
	if (p.has("description")) body += git.quote(p.at("description").str());
	return body;
};

const featureFlag: Body = (p) => {
	const flag = p.at("object_attributes");
	const action = flag.at("active").truthy ? "activated" : "deactivated";
	return `${p.path("user", "username").str()} ${action} the feature flag [${flag.at("name").str()}](${p.path("project", "web_url").str()}/-/feature_flags).`;
};

const accessTokenPage = (p: Wild) =>
	p.has("group") ? `https://gitlab.com/groups/${p.path("group", "group_path").str()}/-/settings/access_tokens` : `${p.path("project", "web_url").str()}/-/settings/access_tokens`;

const accessTokenExpiry: Body = (p) => {
	const token = p.at("object_attributes");
	return `The access token [${token.at("name").str()}](${accessTokenPage(p)}) will expire on ${shortMonthDate(token.at("expires_at").str())}.`;
};

const deployment: Body = (p) => {
	const user = `[${p.path("user", "name").str()}](${p.at("user_url").str()})`;
	const status = p.at("status").str();
	const deployableUrl = p.get("deployable_url", "").str();
	const what = deployableUrl ? `[deployment](${deployableUrl})` : "deployment";
	const commitTitle = p.at("commit_title").str();
	const commitUrl = p.at("commit_url").str();
	const sha = (commitUrl.split("/").pop() ?? "").slice(0, 7);
	const bodies: Record<string, string> = {
		running: `${user} started a new ${what}:\n> [${sha}](${commitUrl}) ${commitTitle}`,
		success: `The ${what} was successful.`,
		failed: `The ${what} failed.`,
		canceled: `The ${what} was canceled.`,
	};
	if (!Object.hasOwn(bodies, status)) throw new UnsupportedEvent(`Deployment Hook ${status}`);
	return bodies[status];
};

const BODIES: Record<string, Body> = {
	"Push Hook": push,
	"Tag Push Hook": (p) => git.pushTagMessage(userName(p), tagName(p), null, p.get("checkout_sha").truthy ? "pushed" : "removed"),
	"Test Hook": testHook,
	"Issue Hook open": issueCreated,
	"Issue Hook close": issueEvent("closed"),
	"Issue Hook reopen": issueEvent("reopened"),
	"Issue Hook update": issueEvent("updated"),
	"Confidential Issue Hook open": issueCreated,
	"Confidential Issue Hook close": issueEvent("closed"),
	"Confidential Issue Hook reopen": issueEvent("reopened"),
	"Confidential Issue Hook update": issueEvent("updated"),
	"Note Hook Commit": commentedCommit,
	"Note Hook MergeRequest": commentedOn("merge_request", "MR"),
	"Note Hook Issue": commentedOn("issue", "issue"),
	"Confidential Note Hook Issue": commentedOn("issue", "issue"),
	"Note Hook DesignManagement::Design": commentedDesign,
	"Confidential Note Hook DesignManagement::Design": commentedDesign,
	"Note Hook Snippet": commentedSnippet,
	"Merge Request Hook approved": mergeRequestEvent("approved"),
	"Merge Request Hook unapproved": mergeRequestEvent("unapproved"),
	"Merge Request Hook approval": mergeRequestEvent("approval"),
	"Merge Request Hook unapproval": mergeRequestEvent("unapproval"),
	"Merge Request Hook open": mergeRequestOpenedOrUpdated("created"),
	"Merge Request Hook update": mergeRequestUpdated,
	"Merge Request Hook merge": mergeRequestEvent("merged"),
	"Merge Request Hook close": mergeRequestEvent("closed"),
	"Merge Request Hook reopen": mergeRequestEvent("reopened"),
	"Wiki Page Hook create": wikiPage("created"),
	"Wiki Page Hook update": wikiPage("updated"),
	"Job Hook": build,
	"Build Hook": build,
	"Pipeline Hook": pipeline,
	"Release Hook": release,
	"Feature Flag Hook": featureFlag,
	"Resource Access Token Hook": accessTokenExpiry,
	"Deployment Hook": deployment,
};

function topicOf(event: string, p: Wild, useMrTitle: boolean): string {
	if (event === "Push Hook") return `${repoName(p)} / ${branchName(p)}`;
	if (event === "Job Hook" || event === "Build Hook") return `${p.path("repository", "name").str()} / ${branchName(p)}`;
	if (event === "Pipeline Hook") return `${repoName(p)} / ${p.path("object_attributes", "ref").str().replaceAll("refs/heads/", "")}`;
	if (event.startsWith("Merge Request Hook")) {
		const mr = p.at("object_attributes");
		return git.topicWithPrOrIssue(repoName(p), "MR", mr.at("iid").int(), useMrTitle ? mr.at("title").str() : "");
	}
	if (event.startsWith("Issue Hook") || event.startsWith("Confidential Issue Hook")) {
		const i = p.at("object_attributes");
		return git.topicWithPrOrIssue(repoName(p), "issue", i.at("iid").int(), i.at("title").str());
	}
	if (event === "Note Hook Issue" || event === "Confidential Note Hook Issue") return git.topicWithPrOrIssue(repoName(p), "issue", p.path("issue", "iid").int(), p.path("issue", "title").str());
	if (event.endsWith("Note Hook DesignManagement::Design")) return `${repoName(p)} / design ${p.path("object_attributes", "position", "new_path").str().split("/").pop()}`;
	if (event === "Note Hook MergeRequest") {
		const mr = p.at("merge_request");
		return git.topicWithPrOrIssue(repoName(p), "MR", mr.at("iid").int(), useMrTitle ? mr.at("title").str() : "");
	}
	if (event === "Note Hook Snippet") return git.topicWithPrOrIssue(repoName(p), "snippet", p.path("snippet", "id").int(), p.path("snippet", "title").str());
	if (event === "Resource Access Token Hook" && p.get("group").truthy) return p.path("group", "group_name").str();
	if (event === "Deployment Hook") return `${repoName(p)} / ${p.at("environment").str()}`;
	return repoName(p);
}

function eventOf(req: WebhookRequest, p: Wild): string | null {
	let event = req.eventHeader("X-GitLab-Event");
	if (event === "System Hook") {
		const name = p.has("event_name") ? p.at("event_name").str() : p.at("object_kind").str();
		event = `${pyTitle(name.split("__")[0].replaceAll("_", " "))} Hook`;
	}
	if (["Confidential Issue Hook", "Issue Hook", "Merge Request Hook", "Wiki Page Hook"].includes(event)) {
		event = `${event} ${p.at("object_attributes").get("action", "open").str()}`;
	} else if (event === "Confidential Note Hook" || event === "Note Hook") {
		event = `${event} ${p.path("object_attributes", "noteable_type").str()}`;
	} else if (event === "Push Hook" && !git.branchNotifiable(branchName(p), req.param("branches"))) {
		return null;
	}
	if (Object.hasOwn(BODIES, event)) return event;
	throw new UnsupportedEvent(event);
}

function handle(req: WebhookRequest) {
	const p = req.json();
	const event = eventOf(req, p);
	if (event === null) return nothing();
	const userTopic = req.param("topic");
	let content = BODIES[event](p, userTopic !== undefined);
	if (userTopic) content = `[[${repoName(p)}](${homepage(p)})] ${content}`;
	return posts({ topic: topicOf(event, p, req.boolParam("use_merge_request_title", true)), content, event });
}

export const gitlab: Integration = { name: "gitlab", displayName: "GitLab", handle };
