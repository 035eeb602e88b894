// The messages every git integration shares, in Zulip's words and format
// (zerver/lib/webhooks/git.py): pushes and their commit lists, branches, tags, pull (merge)
// requests, issues, comments on commits, releases, and the topics they go to.

export const topicWithBranch = (repo: string, branch: string) => `${repo} / ${branch}`;
export const topicWithPrOrIssue = (repo: string, type: string, id: number | string, title: string) => `${repo} / ${type} #${id} ${title}`;
export const topicWithRelease = (repo: string, tag: string, title: string) => `${repo} / ${tag} ${title}`;

export const EMPTY_SHA = "0000000000000000000000000000000000000000";
const COMMITS_LIMIT = 20;
const COMMITTERS_LIMIT = 3;

/** Python's string.punctuation. */
const PUNCTUATION = new Set([..."!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"]);
export const endsWithPunctuation = (s: string) => s.length > 0 && PUNCTUATION.has(s[s.length - 1]);

export const quote = (message: string) => `\n~~~ quote\n${message}\n~~~`;

export const shortSha = (sha: string) => sha.slice(0, 11);

export interface Commit {
	name: string;
	sha: string;
	url?: string | null;
	message: string;
}

/** Committers by commit count (ties alphabetically), the fourth and later folded into "others". */
export function committers(commits: Commit[]): Array<[string, number]> {
	const counts = new Map<string, number>();
	for (const c of commits) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
	let items = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
	if (items.length > COMMITTERS_LIMIT) {
		const others = items.slice(COMMITTERS_LIMIT).reduce((n, [, c]) => n + c, 0);
		items = [...items.slice(0, COMMITTERS_LIMIT), ["others", others]];
	}
	return items;
}

/** Python's str.partition(sep)[0]. */
const firstLine = (s: string) => s.split("\n")[0];

export function commitsContent(commits: Commit[], truncated = false): string {
	let out = "";
	for (const c of commits.slice(0, COMMITS_LIMIT)) out += `* ${firstLine(c.message)} ([${shortSha(c.sha)}](${c.url ?? "None"}))\n`;
	if (commits.length > COMMITS_LIMIT) out += `[and ${commits.length - COMMITS_LIMIT} more commit(s)]`;
	else if (truncated) out += "[and more commit(s)]";
	return out.trimEnd();
}

export function pushCommitsMessage(o: {
	user: string;
	compareUrl: string | null;
	branch: string;
	commits: Commit[];
	truncated?: boolean;
	deleted?: boolean;
	force?: boolean;
	repositoryName?: string | null;
	repositoryUrl?: string | null;
}): string {
	const { user, compareUrl, branch, commits } = o;
	if (!commits.length && o.deleted) return `${user} [deleted](${compareUrl}) the branch ${branch}.`;
	const pushType = o.force ? "force pushed" : "pushed";
	if (!commits.length) return compareUrl ? `${user} [${pushType}](${compareUrl}) the branch ${branch}.` : `${user} ${pushType} the branch ${branch}.`;
	const n = commits.length;
	const what = `${n} commit${n > 1 ? "s" : ""}`;
	const pushed = compareUrl ? `[${pushType}](${compareUrl}) ${what}` : `${pushType} ${what}`;
	const base =
		o.repositoryName && o.repositoryUrl ? `${user} ${pushed} to branch ${branch} of [${o.repositoryName}](${o.repositoryUrl}).` : `${user} ${pushed} to branch ${branch}.`;
	const items = committers(commits);
	const content = commitsContent(commits, o.truncated);
	if (items.length === 1 && user === items[0][0]) return `${base}\n\n${content}`.trimEnd();
	let details = `${items[0][0]} (${items[0][1]})`;
	for (const [name, count] of items.slice(1, -1)) details = `${details}, ${name} (${count})`;
	if (items.length > 1) details = `${details} and ${items[items.length - 1][0]} (${items[items.length - 1][1]})`;
	return `${base} Commits by ${details}.\n\n${content}`.trimEnd();
}

export const forcePushMessage = (user: string, url: string, branch: string, head: string) => `${user} [force pushed](${url}) to branch ${branch}. Head is now ${head}.`;

export const createBranchMessage = (user: string, url: string | null, branch: string) => (url === null ? `${user} created ${branch} branch.` : `${user} created [${branch}](${url}) branch.`);

export const removeBranchMessage = (user: string, branch: string) => `${user} deleted branch ${branch}.`;

export interface Assignee {
	username: string;
}

const assigneeList = (list: Assignee[]) =>
	list.length === 1 ? list[0].username : `${list.slice(0, -1).map((a) => a.username).join(", ")} and ${list[list.length - 1].username}`;

const ACTION_WORDS: Record<string, string> = { approval: "added their approval for", unapproval: "removed their approval for" };

export interface PrEvent {
	user: string;
	action: string;
	url: string;
	number?: number | string | null;
	targetBranch?: string | null;
	baseBranch?: string | null;
	message?: string | null;
	assignee?: string | null;
	assignees?: Assignee[] | null;
	assigneeUpdated?: string | null;
	reviewer?: string | null;
	type?: string;
	title?: string | null;
}

/** Zulip's get_pull_request_event_message. */
export function pullRequestMessage(o: PrEvent): string {
	const type = o.type ?? "PR";
	const id = o.number !== undefined && o.number !== null ? ` #${o.number}` : "";
	const title = o.title !== undefined && o.title !== null ? ` ${o.title}` : "";
	const assigneePart = o.action === "assigned" ? ` ${o.assigneeUpdated ?? "None"} to` : o.action === "unassigned" ? ` ${o.assigneeUpdated ?? "None"} from` : "";
	let main = `${o.user} ${ACTION_WORDS[o.action] ?? o.action}${assigneePart} [${type}${id}${title}](${o.url})`;
	if (o.targetBranch && o.baseBranch) main = `${main} from \`${o.targetBranch}\` to \`${o.baseBranch}\``;
	const assignees = o.assignees && o.assignees.length ? o.assignees : null;
	if (assignees) main = `${main} (assigned to ${assigneeList(assignees)})`;
	else if (o.assignee) main = `${main} (assigned to ${o.assignee})`;
	else if (o.reviewer) main = `${main} (assigned reviewers: ${o.reviewer})`;
	const punctuation = o.message ? ":" : ".";
	const t = o.title;
	if (assignees || o.assignee || (o.targetBranch && o.baseBranch) || t === undefined || t === null || !endsWithPunctuation(t)) main = `${main}${punctuation}`;
	if (o.message) main += `\n${quote(o.message)}`;
	return main.trimEnd();
}

export const issueMessage = (o: Omit<PrEvent, "type" | "targetBranch" | "baseBranch" | "reviewer">) => pullRequestMessage({ ...o, type: "issue" });

export function issueLabelMessage(o: { user: string; action: string; url: string; number: number; label: string; userUrl: string; title?: string | null }): string {
	const preposition = o.action === "added" ? "to" : "from";
	const title = o.title !== undefined && o.title !== null ? ` ${o.title}` : "";
	return `[${o.user}](${o.userUrl}) ${o.action} the ${o.label} label ${preposition} [Issue #${o.number}${title}](${o.url}).`;
}

export function issueMilestoneMessage(o: { user: string; action: string; url: string; number: number; milestone: string; milestoneUrl: string; userUrl: string; title?: string | null }): string {
	const preposition = o.action === "added" ? "to" : "from";
	const title = o.title !== undefined && o.title !== null ? ` ${o.title}` : "";
	return `[${o.user}](${o.userUrl}) ${o.action} milestone [${o.milestone}](${o.milestoneUrl}) ${preposition} [issue #${o.number}${title}](${o.url}).`;
}

export function pushTagMessage(user: string, tag: string, tagUrl: string | null = null, action = "pushed"): string {
	const message = `${user} ${action} tag ${tagUrl ? `[${tag}](${tagUrl})` : tag}`;
	return endsWithPunctuation(tag) ? message : `${message}.`;
}

export function commitCommentMessage(user: string, action: string, commitUrl: string, sha: string, message: string | null = null): string {
	const content = `${user} ${action} on [${shortSha(sha)}](${commitUrl})${message ? ":" : "."}`;
	return message ? content + quote(message) : content;
}

export const releaseMessage = (user: string, action: string, tag: string, releaseName: string, url: string) => `${user} ${action} release [${releaseName}](${url}) for tag ${tag}.`;

/** Whether the URL's `branches` (comma-separated; absent: all) names this branch. */
export function branchNotifiable(branch: string, branches: string | undefined): boolean {
	return branches === undefined || branches.split(",").some((b) => b.trim() === branch);
}
