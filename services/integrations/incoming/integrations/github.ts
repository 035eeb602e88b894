// GitHub (zerver/webhooks/github/view.py): the event is the X-GitHub-Event header, refined by the
// payload's action; pushes honour `branches`, `ignore_private_repositories` drops events of private
// repositories, and a URL `topic` puts the PR or issue title into the message. Sponsors events
// arrive on the same view (/external/githubsponsors).
import type { Wild } from "../payload";
import { nothing, posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";
import { longMonthDate, setupMessage } from "../toolkit/common";
import * as git from "../toolkit/git";

interface Helper {
	payload: Wild;
	includeTitle: boolean;
}

const sender = (p: Wild) => p.path("sender", "login").str();
const senderUrl = (p: Wild) => p.path("sender", "html_url").str();
const repoName = (p: Wild) => p.path("repository", "name").str();
const repoFullName = (p: Wild) => p.path("repository", "full_name").str();
const repoUrl = (p: Wild) => p.path("repository", "html_url").str();
const branchOf = (ref: string) => ref.replace(/^refs\/heads\//, "");
const tagOf = (ref: string) => ref.replace(/^refs\/tags\//, "");

function commentAction(p: Wild): string {
	const action = p.at("action").str();
	const word = action === "created" ? "[commented]" : `${action} a [comment]`;
	return `${word}(${p.path("comment", "html_url").str()}) on`;
}

const isPrComment = (p: Wild) => p.at("issue").has("pull_request");

function openedOrUpdatedPr({ payload: p, includeTitle }: Helper): string {
	const pr = p.at("pull_request");
	let action = p.at("action").str();
	if (action === "synchronize") action = "updated";
	const assignee = pr.get("assignee").truthy ? pr.path("assignee", "login").str() : null;
	const changes = p.get("changes", {});
	const description = changes.has("body") || action === "opened" ? pr.at("body").strOrNull() : null;
	const branches = action === "opened" || action === "merged";
	return git.pullRequestMessage({
		user: sender(p),
		action,
		url: pr.at("html_url").str(),
		targetBranch: branches ? pr.path("head", "label").str() : null,
		baseBranch: branches ? pr.path("base", "label").str() : null,
		message: description,
		assignee,
		number: pr.at("number").int(),
		title: includeTitle ? pr.at("title").str() : null,
	});
}

function assignedPr({ payload: p, includeTitle }: Helper): string {
	const pr = p.at("pull_request");
	return git.pullRequestMessage({
		user: sender(p),
		action: p.at("action").str(),
		url: pr.at("html_url").str(),
		number: pr.at("number").int(),
		title: includeTitle ? pr.at("title").str() : null,
		assigneeUpdated: p.path("assignee", "login").str(),
	});
}

function closedPr({ payload: p, includeTitle }: Helper): string {
	const pr = p.at("pull_request");
	return git.pullRequestMessage({
		user: sender(p),
		action: pr.at("merged").bool() ? "merged" : "closed without merge",
		url: pr.at("html_url").str(),
		number: pr.at("number").int(),
		title: includeTitle ? pr.at("title").str() : null,
	});
}

function membership({ payload: p }: Helper): string {
	const action = p.at("action").str();
	const member = p.at("member");
	return `${sender(p)} ${action} [${member.at("login").str()}](${member.at("html_url").str()}) ${action === "removed" ? "from" : "to"} the ${p.path("team", "name").str()} team.`;
}

const member = ({ payload: p }: Helper) =>
	`${sender(p)} ${p.at("action").str()} [${p.path("member", "login").str()}](${p.path("member", "html_url").str()}) to [${repoName(p)}](${repoUrl(p)}).`;

function issue({ payload: p, includeTitle }: Helper): string {
	const action = p.at("action").str();
	const i = p.at("issue");
	return git.issueMessage({
		user: sender(p),
		action,
		url: i.at("html_url").str(),
		number: i.at("number").int(),
		message: action === "assigned" || action === "unassigned" ? null : i.at("body").strOrNull(),
		title: includeTitle ? i.at("title").str() : null,
		assigneeUpdated: p.has("assignee") ? p.path("assignee", "login").str() : null,
	});
}

function issueComment({ payload: p, includeTitle }: Helper): string {
	const i = p.at("issue");
	return git.pullRequestMessage({
		user: sender(p),
		action: commentAction(p),
		url: i.at("html_url").str(),
		number: i.at("number").int(),
		message: p.path("comment", "body").str(),
		title: includeTitle ? i.at("title").str() : null,
		type: isPrComment(p) ? "PR" : "issue",
	});
}

function issueLabeled({ payload: p, includeTitle }: Helper): string {
	const i = p.at("issue");
	return git.issueLabelMessage({
		user: sender(p),
		action: p.at("action").str() === "labeled" ? "added" : "removed",
		url: i.at("html_url").str(),
		number: i.at("number").int(),
		label: p.path("label", "name").str(),
		userUrl: senderUrl(p),
		title: includeTitle ? i.at("title").str() : null,
	});
}

function issueMilestoned({ payload: p, includeTitle }: Helper): string {
	const i = p.at("issue");
	return git.issueMilestoneMessage({
		user: sender(p),
		action: p.at("action").str() === "milestoned" ? "added" : "removed",
		url: i.at("html_url").str(),
		number: i.at("number").int(),
		milestone: p.path("milestone", "title").str(),
		milestoneUrl: p.path("milestone", "html_url").str(),
		userUrl: senderUrl(p),
		title: includeTitle ? i.at("title").str() : null,
	});
}

const fork = ({ payload: p }: Helper) => `${sender(p)} forked [${p.path("forkee", "name").str()}](${p.path("forkee", "html_url").str()}).`;

const createOrDelete = (action: string) => ({ payload: p }: Helper) => `${sender(p)} ${action} ${p.at("ref_type").str()} ${p.at("ref").str()}.`.trimEnd();

function commitComment({ payload: p }: Helper): string {
	const comment = p.at("comment");
	const commentUrl = comment.at("html_url").str();
	return git.commitCommentMessage(sender(p), `[commented](${commentUrl})`, commentUrl.split("#")[0], comment.at("commit_id").str(), comment.at("body").str());
}

const pushTags = ({ payload: p }: Helper) => git.pushTagMessage(sender(p), tagOf(p.at("ref").str()), null, p.at("created").bool() ? "pushed" : "removed");

function pushCommits({ payload: p }: Helper): string {
	const commits = p.at("commits").list().map((c) => ({
		name: c.at("author").get("username").truthy ? c.path("author", "username").str() : c.path("author", "name").str(),
		sha: c.at("id").str(),
		url: c.at("url").str(),
		message: c.at("message").str(),
	}));
	return git.pushCommitsMessage({
		user: sender(p),
		compareUrl: p.at("compare").str(),
		branch: branchOf(p.at("ref").str()),
		commits,
		deleted: p.at("deleted").bool(),
		force: p.at("forced").bool(),
	});
}

function discussion({ payload: p }: Helper): string {
	const d = p.at("discussion");
	return `${sender(p)} created [discussion #${d.at("number").int()}](${d.at("html_url").str()}) in ${d.path("category", "name").str()}:\n\n~~~ quote\n### ${d.at("title").str()}\n${d.at("body").str()}\n~~~`;
}

function discussionComment({ payload: p, includeTitle }: Helper): string {
	const d = p.at("discussion");
	return git.pullRequestMessage({
		user: sender(p),
		action: commentAction(p),
		url: d.at("html_url").str(),
		number: d.at("number").int(),
		message: p.path("comment", "body").str(),
		title: includeTitle ? d.at("title").str() : null,
		type: "discussion",
	});
}

const publicRepo = ({ payload: p }: Helper) => `${sender(p)} made the repository [${repoFullName(p)}](${repoUrl(p)}) public.`;

function wikiPages({ payload: p }: Helper): string {
	let info = "";
	for (const page of p.at("pages").list()) info += `* ${page.at("action").str()} [${page.at("title").str()}](${page.at("html_url").str()})\n`;
	return `${sender(p)}:\n${info.trimEnd()}`;
}

const watch = ({ payload: p }: Helper) => `${sender(p)} starred the repository [${repoFullName(p)}](${repoUrl(p)}).`;
const repository = ({ payload: p }: Helper) => `${sender(p)} ${p.at("action").str()} the repository [${repoFullName(p)}](${repoUrl(p)}).`;
const teamAdd = ({ payload: p }: Helper) => `The repository [${repoFullName(p)}](${repoUrl(p)}) was added to team ${p.path("team", "name").str()}.`;

function team({ payload: p }: Helper): string {
	const changes = p.at("changes");
	if (changes.has("description")) return `**${sender(p)}** changed the team description to:\n\n~~~ quote\n${p.path("team", "description").str()}\n~~~`;
	if (changes.has("name")) return `Team \`${changes.path("name", "from").str()}\` was renamed to \`${p.path("team", "name").str()}\`.`;
	if (changes.has("privacy")) return `Team visibility changed to \`${p.path("team", "privacy").str()}\``;
	return `Team has changes to \`${changes.keys().sort().join("/")}\` data.`;
}

function release({ payload: p }: Helper): string {
	const r = p.at("release");
	const name = r.at("name").truthy ? r.at("name").str() : r.at("tag_name").str();
	return git.releaseMessage(sender(p), p.at("action").str(), r.at("tag_name").str(), name, r.at("html_url").str());
}

const PAGE_BUILD_ACTIONS: Record<string, string> = { null: "has yet to be built", building: "is being built", errored: "has failed: {}", built: "has finished building" };

function pageBuild({ payload: p }: Helper): string {
	const build = p.at("build");
	const status = build.at("status").str();
	let action = PAGE_BUILD_ACTIONS[status] ?? `is ${status}`;
	if (build.path("error", "message").truthy) action = action.replace("{}", git.quote(build.path("error", "message").str()));
	return `GitHub Pages build, triggered by ${build.path("pusher", "login").str()}, ${action}.`;
}

function status({ payload: p }: Helper): string {
	const state = p.at("state").str();
	const shown = p.at("target_url").truthy ? `[${state}](${p.at("target_url").str()})` : state;
	return `[${git.shortSha(p.at("sha").str())}](${p.path("commit", "html_url").str()}) changed its status to ${shown}.`;
}

function lockedPr({ payload: p }: Helper): string {
	const pr = p.at("pull_request");
	const number = pr.at("number").int();
	const url = pr.at("html_url").str();
	if (p.at("action").str() === "unlocked") return `${sender(p)} has unlocked [PR #${number}](${url}).`;
	const reason = pr.at("active_lock_reason").truthy ? pr.at("active_lock_reason").str() : "None";
	return `${sender(p)} has locked [PR #${number}](${url}) as ${reason} and limited conversation to collaborators.`;
}

function autoMerge({ payload: p }: Helper): string {
	const pr = p.at("pull_request");
	const verb = p.at("action").str() === "auto_merge_disabled" ? "disabled" : "enabled";
	return `${sender(p)} has ${verb} auto merge for [PR #${pr.at("number").int()}](${pr.at("html_url").str()}).`;
}

const readyForReview = ({ payload: p }: Helper) =>
	`**${sender(p)}** has marked [PR #${p.path("pull_request", "number").int()}](${p.path("pull_request", "html_url").str()}) as ready for review.`;

function prReview({ payload: p, includeTitle }: Helper): string {
	const pr = p.at("pull_request");
	const title = `for #${pr.at("number").int()} ${pr.at("title").str()}`;
	return git.pullRequestMessage({
		user: sender(p),
		action: "submitted",
		url: p.path("review", "html_url").str(),
		type: "PR review",
		title: includeTitle ? title : null,
		message: p.path("review", "body").strOrNull(),
	});
}

function prReviewComment({ payload: p, includeTitle }: Helper): string {
	const action = p.at("action").str();
	const pr = p.at("pull_request");
	const title = `on #${pr.at("number").int()} ${pr.at("title").str()}`;
	return git.pullRequestMessage({
		user: sender(p),
		action,
		url: p.path("comment", "html_url").str(),
		message: action === "created" ? p.path("comment", "body").str() : null,
		type: "PR review comment",
		title: includeTitle ? title : null,
	});
}

function reviewRequested({ payload: p, includeTitle }: Helper): string {
	const pr = p.at("pull_request");
	const number = pr.at("number").int();
	const url = pr.at("html_url").str();
	let reviewers: string;
	if (p.has("requested_reviewer")) {
		const r = p.at("requested_reviewer");
		reviewers = `[${r.at("login").str()}](${r.at("html_url").str()})`;
	} else {
		const t = p.at("requested_team");
		reviewers = `[${t.at("name").str()}](${t.at("html_url").str()})`;
	}
	const pr_ = includeTitle ? `PR #${number} ${pr.at("title").str()}` : `PR #${number}`;
	return `**${sender(p)}** requested ${reviewers} for a review on [${pr_}](${url}).`;
}

function checkRun({ payload: p }: Helper): string {
	const run = p.at("check_run");
	const sha = run.at("head_sha").str();
	return `Check [${run.at("name").str()}](${run.at("html_url").str()}) ${run.at("status").str()} (${run.at("conclusion").str()}). ([${git.shortSha(sha)}](${repoUrl(p)}/commit/${sha}))`;
}

const star = ({ payload: p }: Helper) =>
	`[${sender(p)}](${senderUrl(p)}) ${p.at("action").str() === "created" ? "starred" : "unstarred"} the repository [${repoFullName(p)}](${repoUrl(p)}).`;

const ping = ({ payload: p }: Helper) => setupMessage("GitHub", sender(p));

const subscription = (p: Wild) => p.path("sponsorship", "tier", "name").str();
const priorSubscription = (p: Wild) => p.path("changes", "tier", "from", "name").str();
const effectiveDate = (p: Wild) => longMonthDate(p.at("effective_date").str().slice(0, 10));

const cancelled = ({ payload: p }: Helper) => `${sender(p)} cancelled their ${subscription(p)} subscription.`;
const created = ({ payload: p }: Helper) => `${sender(p)} subscribed for ${subscription(p)}.`;
const edited = ({ payload: p }: Helper) =>
	`${sender(p)} changed who can see their sponsorship from ${p.path("changes", "privacy_level", "from").str()} to ${p.path("sponsorship", "privacy_level").str()}.`;
const pendingCancellation = ({ payload: p }: Helper) => `${sender(p)}'s ${subscription(p)} subscription will be cancelled on ${effectiveDate(p)}.`;
const pendingTierChange = ({ payload: p }: Helper) =>
	`${sender(p)}'s subscription will change from ${priorSubscription(p)} to ${subscription(p)} on ${effectiveDate(p)}.`;
const tierChanged = ({ payload: p }: Helper) => `${sender(p)} changed their subscription from ${priorSubscription(p)} to ${subscription(p)}.`;

function issueTransferred({ payload: p }: Helper): string {
	const i = p.at("issue");
	const c = p.at("changes");
	return `${sender(p)} transferred [issue #${i.at("number").int()} ${i.at("title").str()}](${i.at("html_url").str()}) to [${c.path("new_repository", "full_name").str()}/#${c.path("new_issue", "number").int()}](${c.path("new_issue", "html_url").str()}).`;
}

function issueOpenedViaTransfer({ payload: p }: Helper): string {
	const i = p.at("issue");
	const c = p.at("changes");
	return `[Issue #${i.at("number").int()} ${i.at("title").str()}](${i.at("html_url").str()}) was transferred from [${c.path("old_repository", "full_name").str()}#${c.path("old_issue", "number").int()}](${c.path("old_issue", "html_url").str()}).`;
}

const BODIES: Record<string, (h: Helper) => string> = {
	commit_comment: commitComment,
	closed_pull_request: closedPr,
	create: createOrDelete("created"),
	check_run: checkRun,
	delete: createOrDelete("deleted"),
	deployment: ({ payload: p }) => `${sender(p)} created new deployment.`,
	deployment_status: ({ payload: p }) => `Deployment changed status to ${p.path("deployment_status", "state").str()}.`,
	discussion,
	discussion_comment: discussionComment,
	fork,
	gollum: wikiPages,
	issue_comment: issueComment,
	issue_labeled_or_unlabeled: issueLabeled,
	issue_milestoned_or_demilestoned: issueMilestoned,
	issues_opened_via_transfer: issueOpenedViaTransfer,
	issues_transferred: issueTransferred,
	issues: issue,
	member,
	membership,
	opened_pull_request: openedOrUpdatedPr,
	updated_pull_request: openedOrUpdatedPr,
	assigned_or_unassigned_pull_request: assignedPr,
	page_build: pageBuild,
	ping,
	public: publicRepo,
	pull_request_ready_for_review: readyForReview,
	pull_request_review: prReview,
	pull_request_review_comment: prReviewComment,
	pull_request_review_requested: reviewRequested,
	pull_request_auto_merge: autoMerge,
	locked_or_unlocked_pull_request: lockedPr,
	push_commits: pushCommits,
	push_tags: pushTags,
	release,
	repository,
	star,
	status,
	team,
	team_add: teamAdd,
	watch,
	cancelled,
	created,
	edited,
	pending_cancellation: pendingCancellation,
	pending_tier_change: pendingTierChange,
	tier_changed: tierChanged,
};

const SPONSORS_EVENTS = new Set(["cancelled", "created", "edited", "pending_cancellation", "pending_tier_change", "tier_changed"]);
const IGNORED_EVENTS = new Set(["check_suite", "label", "meta", "milestone", "organization", "project_card", "push__merge_queue", "repository_vulnerability_alert"]);
const IGNORED_PR_ACTIONS = new Set(["approved", "converted_to_draft", "labeled", "review_request_removed", "unlabeled"]);
const IGNORED_TEAM_ACTIONS = new Set(["added_to_repository", "created", "deleted", "removed_from_repository"]);

const PR_ACTIONS: Record<string, string> = {
	opened: "opened_pull_request",
	reopened: "opened_pull_request",
	synchronize: "updated_pull_request",
	edited: "updated_pull_request",
	assigned: "assigned_or_unassigned_pull_request",
	unassigned: "assigned_or_unassigned_pull_request",
	closed: "closed_pull_request",
	review_requested: "pull_request_review_requested",
	ready_for_review: "pull_request_ready_for_review",
	locked: "locked_or_unlocked_pull_request",
	unlocked: "locked_or_unlocked_pull_request",
	auto_merge_enabled: "pull_request_auto_merge",
	auto_merge_disabled: "pull_request_auto_merge",
};

/** Zulip's get_zulip_event_name: the event's name in BODIES, or null for one deliberately ignored. */
function eventName(header: string, p: Wild, branches: string | undefined): string | null {
	if (header === "pull_request") {
		const action = p.at("action").str();
		if (Object.hasOwn(PR_ACTIONS, action)) return PR_ACTIONS[action];
		if (IGNORED_PR_ACTIONS.has(action)) return null;
	} else if (header === "pull_request_review") {
		// GitHub sends a duplicate empty "edited" event for a review's body.
		if (p.at("action").str() === "edited" && p.get("changes", {}).keys().length === 0) return null;
		return "pull_request_review";
	} else if (header === "push") {
		const ref = p.at("ref").str();
		if (ref.startsWith("refs/heads/gh-readonly-queue/")) return null;
		if (!ref.startsWith("refs/heads/")) return "push_tags";
		return git.branchNotifiable(branchOf(ref), branches) ? "push_commits" : null;
	} else if (header === "check_run") {
		return p.path("check_run", "status").str() === "completed" ? "check_run" : null;
	} else if (header === "team") {
		const action = p.at("action").str();
		if (action === "edited") return "team";
		if (IGNORED_TEAM_ACTIONS.has(action)) return null;
		throw new UnsupportedEvent(`unsupported team action ${action}`);
	} else if (header === "issues") {
		const action = p.at("action").str();
		if (action === "labeled" || action === "unlabeled") return "issue_labeled_or_unlabeled";
		if (action === "milestoned" || action === "demilestoned") return "issue_milestoned_or_demilestoned";
		if (action === "transferred") return "issues_transferred";
		if (action === "opened" && p.get("changes", {}).get("old_issue").truthy) return "issues_opened_via_transfer";
		return "issues";
	} else if (Object.hasOwn(BODIES, header)) {
		return header;
	} else if (IGNORED_EVENTS.has(header)) {
		return null;
	}
	throw new UnsupportedEvent(`${header}:${p.get("action", "???").str()}`);
}

function topicOf(p: Wild, event: string): string {
	if (event.includes("pull_request")) {
		const pr = p.at("pull_request");
		return git.topicWithPrOrIssue(repoName(p), "PR", pr.at("number").int(), pr.at("title").str());
	}
	if (event.startsWith("issue")) {
		const i = p.at("issue");
		return git.topicWithPrOrIssue(repoName(p), isPrComment(p) ? "PR" : "issue", i.at("number").int(), i.at("title").str());
	}
	if (event.startsWith("deployment")) return `${repoName(p)} / Deployment on ${p.path("deployment", "environment").str()}`;
	if (event === "membership") return `${p.path("organization", "login").str()} organization`;
	if (event === "team") return `team ${p.path("team", "name").str()}`;
	if (event === "push_commits") return git.topicWithBranch(repoName(p), branchOf(p.at("ref").str()));
	if (event === "gollum") return git.topicWithBranch(repoName(p), "wiki pages");
	if (event === "ping" && !p.get("repository").truthy) return p.path("organization", "login").str();
	if (event === "check_run") return `${repoName(p)} / checks`;
	if (event.startsWith("discussion")) {
		const d = p.at("discussion");
		return `${repoName(p)} discussion #${d.at("number").int()}: ${d.at("title").str()}`;
	}
	if (SPONSORS_EVENTS.has(event)) return "sponsors";
	return repoName(p);
}

function handle(req: WebhookRequest) {
	const p = req.json();
	const header = req.eventHeader("X-GitHub-Event");
	if (p.has("repository") && p.path("repository", "private").bool() && req.boolParam("ignore_private_repositories")) return nothing();
	// An edited comment (not a discussion's) whose body did not change says nothing new.
	if (header.includes("comment") && !header.includes("discussion") && p.get("action", "").str() === "edited") {
		if (p.path("changes", "body", "from").str() === p.path("comment", "body").str()) return nothing();
	}
	const event = eventName(header, p, req.param("branches"));
	if (event === null) return nothing();
	const topic = topicOf(p, event);
	const content = BODIES[event]({ payload: p, includeTitle: req.param("topic") !== undefined });
	return posts({ topic, content, event });
}

export const github: Integration = {
	name: "github",
	aliases: ["githubsponsors"],
	displayName: "GitHub",
	notifyOnInvalidJson: true,
	handle,
};
