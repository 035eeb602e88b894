// Azure DevOps (zerver/webhooks/azuredevops/view.py): code pushes and pull requests, the event
// being the payload's eventType. A merge event is posted only once the merge succeeded; pushes
// honour `branches` (matched as a substring, as Zulip does).
import type { Wild } from "../payload";
import { nothing, posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";
import * as git from "../toolkit/git";

const resource = (p: Wild) => p.at("resource");
const repoName = (p: Wild) => resource(p).path("repository", "name").str();
const repoUrl = (p: Wild) => resource(p).path("repository", "remoteUrl").str();
const refUpdate = (p: Wild) => resource(p).at("refUpdates").item(0);
const pushBranch = (p: Wild) => refUpdate(p).at("name").str().replaceAll("refs/heads/", "");
const prUser = (p: Wild) => resource(p).path("createdBy", "displayName").str();
const prUrl = (p: Wild) => resource(p).path("_links", "web", "href").str();
const prId = (p: Wild) => resource(p).at("pullRequestId").int();
const prTitle = (p: Wild) => resource(p).at("title").str();
const refName = (p: Wild, key: string) => resource(p).at(key).str().replaceAll("refs/heads/", "");

const BODIES: Record<string, (p: Wild) => string> = {
	"git.push": (p) => {
		const update = refUpdate(p);
		const compareUrl = `${repoUrl(p)}/branchCompare?baseVersion=GC${update.at("oldObjectId").str()}&targetVersion=GC${update.at("newObjectId").str()}&_a=files`;
		const commits = resource(p)
			.get("commits", [])
			.list()
			.map((c) => ({ name: c.path("author", "name").str(), sha: c.at("commitId").str(), url: `${repoUrl(p)}/commit/${c.at("commitId").str()}`, message: c.at("comment").str() }));
		return git.pushCommitsMessage({ user: resource(p).path("pushedBy", "displayName").str(), compareUrl, branch: pushBranch(p), commits });
	},
	"git.pullrequest.created": (p) => {
		const description = resource(p).get("description");
		return git.pullRequestMessage({
			user: prUser(p),
			action: "created",
			url: prUrl(p),
			number: prId(p),
			targetBranch: refName(p, "sourceRefName"),
			baseBranch: refName(p, "targetRefName"),
			message: description.truthy ? description.str() : null,
			title: prTitle(p),
		});
	},
	"git.pullrequest.merged": (p) =>
		git.pullRequestMessage({ user: prUser(p), action: "merged", url: prUrl(p), number: prId(p), targetBranch: refName(p, "sourceRefName"), baseBranch: refName(p, "targetRefName"), title: prTitle(p) }),
	"git.pullrequest.updated": (p) =>
		git.pullRequestMessage({ user: prUser(p), action: "updated", url: prUrl(p), number: prId(p), message: p.path("detailedMessage", "markdown").str(), title: prTitle(p) }),
};

function eventOf(p: Wild, branches: string | undefined): string | null {
	const event = p.at("eventType").str();
	if (event === "git.push" && branches !== undefined && !branches.includes(pushBranch(p))) return null;
	// Azure DevOps also reports merge attempts (conflicts): only a completed merge is news.
	if (event === "git.pullrequest.merged" && (resource(p).at("status").str() !== "completed" || resource(p).at("mergeStatus").str() !== "succeeded")) return null;
	if (Object.hasOwn(BODIES, event)) return event;
	throw new UnsupportedEvent(event);
}

function handle(req: WebhookRequest) {
	const p = req.payload();
	const event = eventOf(p, req.param("branches"));
	if (event === null) return nothing();
	const topic = event === "git.push" ? git.topicWithBranch(repoName(p), pushBranch(p)) : git.topicWithPrOrIssue(repoName(p), "PR", prId(p), prTitle(p));
	return posts({ topic, content: BODIES[event](p) });
}

export const azuredevops: Integration = { name: "azuredevops", displayName: "AzureDevOps", handle };
