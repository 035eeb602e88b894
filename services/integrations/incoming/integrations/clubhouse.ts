// Clubhouse, now Shortcut (zerver/webhooks/clubhouse/view.py): what happened to stories and
// epics, one message per story or epic touched, in its name as topic. A payload's actions are
// read from its primary action (or every action of a batch update, which has none); a GitHub PR,
// PR comment or branch is told to every story it is linked to. Changes Zulip does not render
// (a task left incomplete, a label removed, a batch of other fields) post nothing.
import { nothing, UnsupportedEvent, type Integration, type Outcome, type Post, type WebhookRequest } from "../integration";
import type { Wild } from "../payload";
import { pyStr } from "../toolkit/common";

type Body = (payload: Wild, action: Wild) => string | null;

/** A value a message needs and the payload lacks: Zulip's KeyError, a malformed payload here. */
function need<T>(value: T | undefined | null, what: string): T {
	if (value === undefined || value === null) throw new Error(`no ${what} in the payload`);
	return value;
}

/** Zulip's check_string_or_int: an ID as the payload gives it, compared as Python compares it. */
function refId(w: Wild): string | number {
	const v = w.value;
	if (typeof v === "string") return v;
	return w.int();
}

/** The last reference with this ID (Zulip's get_reference_by_id). */
function reference(payload: Wild, id: number | null): Wild | null {
	let found: Wild | null = null;
	for (const ref of payload.at("references").list()) if (refId(ref.at("id")) === id) found = ref;
	return found;
}

/** The name of the last reference with this ID, if there is one. */
function referenceName(payload: Wild, id: number | null): string | undefined {
	const ref = reference(payload, id);
	return ref ? ref.at("name").str() : undefined;
}

const storyLink = (action: Wild) => `[${action.at("name").str()}](${action.at("app_url").str()})`;
/** A story as a link (its URL may be missing: "None"), an epic in bold (its URL read all the same, as Zulip reads it). */
function entityName(entity: string, action: Wild): string {
	const [name, url] = [action.at("name").str(), action.get("app_url").strOrNull()];
	return entity === "story" ? `[${name}](${pyStr(url)})` : `**${name}**`;
}
const quote = (text: string) => `\`\`\` quote\n${text}\n\`\`\``;

function primaryAction(payload: Wild): Wild {
	const primary = payload.at("primary_id").value;
	let found: Wild | undefined;
	for (const action of payload.at("actions").list()) if (action.at("id").value === primary) found = action;
	return need(found, "primary action");
}

function eventOf(payload: Wild, action: Wild): string | null {
	let event = `${action.at("entity_type").str()}_${action.at("action").str()}`;
	if (event === "story_update" && !payload.has("primary_id")) return "story_update_batch";
	if (IGNORED_EVENTS.has(event)) return null;
	if (action.has("changes")) {
		const changes = action.at("changes");
		const change = CHANGE_SUFFIXES.find(([field]) => changes.has(field));
		if (change) event = `${event}_${change[1]}`;
	}
	return event;
}

/** The changed field that names an update, in Zulip's order of precedence. */
const CHANGE_SUFFIXES: Array<[string, string]> = [
	["description", "description"],
	["state", "state"],
	["workflow_state_id", "state"],
	["name", "name"],
	["archived", "archived"],
	["complete", "complete"],
	["epic_id", "epic"],
	["estimate", "estimate"],
	["file_ids", "attachment"],
	["label_ids", "label"],
	["project_id", "project"],
	["story_type", "type"],
	["owner_ids", "owner"],
];

const IGNORED_EVENTS = new Set(["story-comment_update"]);

function storyCreate(payload: Wild, action: Wild): string {
	const link = storyLink(action);
	if (!action.has("epic_id")) return `New story ${link} of type **${action.at("story_type").str()}** was created.`;
	const epicId = action.at("epic_id").int();
	let epic: string | undefined;
	for (const ref of payload.at("references").list()) if (refId(ref.at("id")) === epicId) epic = ref.at("name").str();
	return `New story ${link} was created and added to the epic **${need(epic, "epic")}**.`;
}

const commentAdded =
	(entity: string): Body =>
	(payload) => {
		let text: string | undefined;
		let name: string | undefined;
		const primary = payload.at("primary_id").value;
		for (const action of payload.at("actions").list()) {
			if (action.at("id").value === primary) text = action.at("text").str();
			else if (action.at("entity_type").value === entity) name = entityName(entity, action);
		}
		return `New comment added to the ${entity} ${need(name, entity)}:\n${quote(need(text, "comment"))}`;
	};

const descriptionUpdate =
	(entity: string): Body =>
	(_payload, action) => {
		const desc = action.path("changes", "description");
		const [now, old] = [desc.at("new").str(), desc.at("old").str()];
		const name = entityName(entity, action);
		if (now && old) return `Description for the ${entity} ${name} was changed from:\n${quote(old)}\nto\n${quote(now)}`;
		if (now) return `New description added to the ${entity} ${name}:\n${quote(now)}`;
		return `Description for the ${entity} ${name} was removed.`;
	};

function epicStateUpdate(_payload: Wild, action: Wild): string {
	const state = action.path("changes", "state");
	return `State of the epic **${action.at("name").str()}** was changed from **${state.at("old").str()}** to **${state.at("new").str()}**.`;
}

/** The names the references give a change's old and new IDs (the last reference of each), where they do. */
function changeNames(payload: Wild, ids: { old: number | null; now: number | null }): { old?: string; now?: string } {
	const names: { old?: string; now?: string } = {};
	for (const ref of payload.at("references").list()) {
		const id = refId(ref.at("id"));
		if (id === ids.now) names.now = ref.at("name").str();
		if (id === ids.old) names.old = ref.at("name").str();
	}
	return names;
}

function storyStateUpdate(payload: Wild, action: Wild): string {
	const ids = action.path("changes", "workflow_state_id");
	const names = changeNames(payload, { now: ids.at("new").int(), old: ids.at("old").int() });
	const [now, old] = [need(names.now, "new state"), need(names.old, "old state")];
	return `State of the story ${entityName("story", action)} was changed from **${old}** to **${now}**.`;
}

const nameUpdate =
	(entity: string): Body =>
	(_payload, action) => {
		const name = action.path("changes", "name");
		const [now, old] = [name.at("new").str(), name.at("old").str()];
		return `The name of the ${entity} ${entityName(entity, action)} was changed from:\n${quote(old)}\nto\n${quote(now)}`;
	};

const archivedUpdate =
	(entity: string): Body =>
	(_payload, action) =>
		`The ${entity} ${entityName(entity, action)} was ${action.path("changes", "archived").at("new").truthy ? "archived" : "unarchived"}.`;

const storyTask =
	(operation: string): Body =>
	(payload, action) => {
		const task = action.at("description").str();
		let story: string | undefined;
		for (const a of payload.at("actions").list()) if (a.at("entity_type").str() === "story") story = storyLink(a);
		return `Task **${task}** was ${operation} the story ${need(story, "story")}.`;
	};

function storyTaskCompleted(payload: Wild, action: Wild): string | null {
	const task = action.at("description").str();
	const storyId = action.at("story_id").int();
	let story: string | undefined;
	for (const ref of payload.at("references").list()) if (refId(ref.at("id")) === storyId) story = storyLink(ref);
	if (!action.path("changes", "complete", "new").bool()) return null;
	return `Task **${task}** (${need(story, "story")}) was completed. :tada:`;
}

function storyEpicUpdate(payload: Wild, action: Wild): string {
	const story = storyLink(action);
	const ids = action.path("changes", "epic_id");
	const [newId, oldId] = [ids.get("new").intOrNull(), ids.get("old").intOrNull()];
	const names = changeNames(payload, { now: newId, old: oldId });
	const epic = (name: string | undefined, what: string) => `**${need(name, what)}**`;
	if (newId && oldId) return `The story ${story} was moved from ${epic(names.old, "old epic")} to ${epic(names.now, "new epic")}.`;
	if (newId) return `The story ${story} was added to the epic ${epic(names.now, "epic")}.`;
	return `The story ${story} was removed from the epic ${epic(names.old, "epic")}.`;
}

function storyEstimateUpdate(_payload: Wild, action: Wild): string {
	const estimate = action.path("changes", "estimate");
	const value = estimate.has("new") ? `${estimate.at("new").int()} points` : "*Unestimated*";
	return `The estimate for the story ${storyLink(action)} was set to ${value}.`;
}

function storyAttachmentUpdate(payload: Wild, action: Wild): string | null {
	const story = storyLink(action);
	const fileIds = action.path("changes", "file_ids");
	if (!fileIds.has("adds")) return null;
	const fileId = need(fileIds.at("adds").list().map((w) => w.int())[0], "file");
	let file: { type: string; name: string } | undefined;
	for (const ref of payload.at("references").list()) if (refId(ref.at("id")) === fileId) file = { type: ref.at("entity_type").str(), name: ref.at("name").str() };
	file = need(file, "file");
	return `A ${file.type} attachment \`${file.name}\` was added to the story ${story}.`;
}

/** The labels added, by the name their action or reference gives them, in bold. */
function labelList(payload: Wild, ids: number[]): string {
	return ids
		.map((id) => {
			let name = "";
			for (const a of payload.at("actions").list()) if (a.at("id").int() === id) name = a.get("name", "").str();
			if (name === "") name = referenceName(payload, id) ?? "";
			return `**${name}**`;
		})
		.join(", ");
}

function storyLabelUpdate(payload: Wild, action: Wild): string | null {
	const story = storyLink(action);
	const labelIds = action.path("changes", "label_ids");
	if (!labelIds.has("adds")) return null;
	const added = labelIds.at("adds").list().map((w) => w.int());
	const labels = labelList(payload, added);
	return added.length === 1 ? `The label ${labels} was added to the story ${story}.` : `The labels ${labels} were added to the story ${story}.`;
}

function storyProjectUpdate(payload: Wild, action: Wild): string {
	const story = storyLink(action);
	const ids = action.path("changes", "project_id");
	const names = changeNames(payload, { now: ids.at("new").int(), old: ids.at("old").int() });
	return `The story ${story} was moved from the **${need(names.old, "old project")}** project to **${need(names.now, "new project")}**.`;
}

function storyTypeUpdate(_payload: Wild, action: Wild): string {
	const story = storyLink(action);
	const type = action.path("changes", "story_type");
	const [now, old] = [type.at("new").str(), type.at("old").str()];
	return `The type of the story ${story} was changed from **${old}** to **${now}**.`;
}

const storyOwnerUpdate: Body = (_payload, action) => `New owner added to the story ${storyLink(action)}.`;

/** " (old -> new)" of a story's workflow state, named by its references ("None" for one not there). */
function workflowStateChange(payload: Wild, ids: Wild): string {
	const name = (key: string) => pyStr(referenceName(payload, ids.get(key).intOrNull()) ?? null);
	const old = name("old");
	return ` (${old} -> ${name("new")})`;
}

const githubEntity =
	(entity: "pull-request" | "pull-request-comment" | "branch"): Body =>
	(payload, action) => {
		const linked = primaryAction(payload);
		const story = storyLink(action);
		const name = entity === "branch" ? linked.at("name").str() : String(linked.at("number").int());
		const url = linked.at("url").str();
		let state = "";
		const changes = action.at("changes");
		if (changes.has("workflow_state_id")) {
			const ids = changes.at("workflow_state_id");
			const [newId, oldId] = [ids.at("new").int(), ids.at("old").int()];
			const now = need(reference(payload, newId), "new state").at("name").str();
			const old = need(reference(payload, oldId), "old state").at("name").str();
			state = ` (${old} -> ${now})`;
		}
		if (entity === "pull-request") return `New GitHub PR [#${name}](${url}) opened for story ${story}${state}.`;
		if (entity === "pull-request-comment") return `Existing GitHub PR [#${name}](${url}) associated with story ${story}${state}.`;
		return `New GitHub branch [${name}](${url}) associated with story ${story}${state}.`;
	};

/** " from <Epic **a** to **b**>" of a batch move, or null when the field did not change. */
function batchMove(payload: Wild, changes: Wild, field: string, label: string): string | null {
	if (!changes.has(field)) return null;
	const ids = changes.at(field);
	const name = (key: string) => pyStr(referenceName(payload, ids.get(key).intOrNull()) ?? null);
	const old = name("old");
	return `${label} **${old}** to **${name("new")}**`;
}

/**
 * Several fields of several stories changed at once: one sentence of every change, or where only
 * one kind changed, that kind's own message.
 */
function storyBatchUpdate(payload: Wild, action: Wild): string | null {
	const changes = action.at("changes");
	const story = storyLink(action);
	const parts: string[] = [];
	let lastChange = "other";
	const moves: string[] = [];
	for (const [field, label, change] of [
		["epic_id", "Epic", "epic"],
		["project_id", "Project", "project"],
	]) {
		const move = batchMove(payload, changes, field, label);
		if (move === null) continue;
		lastChange = change;
		moves.push(move);
	}
	if (moves.length) parts.push(`was moved from ${moves.join(", ")}`);
	if (changes.has("story_type")) {
		lastChange = "type";
		const type = changes.at("story_type");
		const [old, now] = [type.get("old").strOrNull(), type.get("new").strOrNull()];
		parts.push(`${parts.length ? "and" : "was"} changed from type **${pyStr(old)}** to **${pyStr(now)}**`);
	}
	if (changes.has("label_ids")) {
		const labelIds = changes.at("label_ids");
		if (labelIds.has("adds")) {
			const added = labelIds.at("adds").list().map((w) => w.int());
			lastChange = "label";
			const labels = labelList(payload, added);
			// Zulip's plural counts the label change's keys (adds, removes), not the labels.
			parts.push(`${parts.length ? "and" : "was"} added with the new label${labelIds.keys().length > 1 ? "s" : ""} ${labels}`);
		}
	}
	let state = "";
	if (changes.has("workflow_state_id")) {
		lastChange = "state";
		state = workflowStateChange(payload, changes.at("workflow_state_id"));
	}
	if (parts.length <= 1) {
		const single = `story_update_${lastChange}`;
		return Object.hasOwn(BODIES, single) ? BODIES[single](payload, action) : null;
	}
	return `The story ${story} ${parts.join(", ")}${state}.`;
}

function entityNameOf(entity: string, payload: Wild, action: Wild): string | null {
	let name = action.has("name") ? action.at("name").str() : null;
	if (name === null || action.at("entity_type").value === "branch") {
		for (const a of payload.at("actions").list()) if (a.at("entity_type").str() === entity) name = a.at("name").str();
	}
	if (name === null) for (const ref of payload.at("references").list()) if (ref.at("entity_type").str() === entity) name = ref.at("name").str();
	return name;
}

const BODIES: Record<string, Body> = {
	story_update_archived: archivedUpdate("story"),
	epic_update_archived: archivedUpdate("epic"),
	story_create: storyCreate,
	"pull-request_create": githubEntity("pull-request"),
	"pull-request_comment": githubEntity("pull-request-comment"),
	branch_create: githubEntity("branch"),
	story_delete: (_payload, action) => `The ${action.at("entity_type").str()} **${action.at("name").str()}** was deleted.`,
	epic_delete: (_payload, action) => `The ${action.at("entity_type").str()} **${action.at("name").str()}** was deleted.`,
	"story-task_create": storyTask("added to"),
	"story-task_delete": storyTask("removed from"),
	"story-task_update_complete": storyTaskCompleted,
	story_update_epic: storyEpicUpdate,
	story_update_estimate: storyEstimateUpdate,
	story_update_attachment: storyAttachmentUpdate,
	story_update_label: storyLabelUpdate,
	story_update_owner: storyOwnerUpdate,
	story_update_project: storyProjectUpdate,
	story_update_type: storyTypeUpdate,
	epic_create: (_payload, action) => `New epic **${action.at("name").str()}**(${action.at("state").str()}) was created.`,
	"epic-comment_create": commentAdded("epic"),
	"story-comment_create": commentAdded("story"),
	epic_update_description: descriptionUpdate("epic"),
	story_update_description: descriptionUpdate("story"),
	epic_update_state: epicStateUpdate,
	story_update_state: storyStateUpdate,
	epic_update_name: nameUpdate("epic"),
	story_update_name: nameUpdate("story"),
	story_update_batch: storyBatchUpdate,
};

/** Whose name is the topic, by the action's entity type. */
const TOPIC_ENTITY: Record<string, string> = { story: "story", "pull-request": "story", branch: "story", "story-comment": "story", "story-task": "story", epic: "epic", "epic-comment": "epic" };

/** Events told to each story the primary action is linked to, by the field that links them. */
const LINKED_STORIES: Record<string, string> = { "pull-request_create": "pull_request_ids", branch_create: "branch_ids", "pull-request_comment": "pull_request_ids" };

function message(payload: Wild, action: Wild, event: string): Post | null {
	const entityType = action.at("entity_type").str();
	if (!Object.hasOwn(BODIES, event) || !Object.hasOwn(TOPIC_ENTITY, entityType)) throw new UnsupportedEvent(event);
	const topic = entityNameOf(TOPIC_ENTITY[entityType], payload, action);
	const content = BODIES[event](payload, action);
	return topic && content ? { topic, content, event } : null;
}

function handle(req: WebhookRequest): Outcome {
	const payload = req.json();
	// Clubhouse sends empty POSTs now and then; Zulip ignores them.
	if (payload.value === null) return nothing();
	const primaries = payload.has("primary_id") ? [primaryAction(payload)] : payload.at("actions").list();
	const list: Post[] = [];
	for (const primary of primaries) {
		const event = eventOf(payload, primary);
		if (event === null) continue;
		const linkedBy = LINKED_STORIES[event];
		const actions = linkedBy ? payload.at("actions").list().filter((a) => a.at("entity_type").str() === "story" && a.at("changes").has(linkedBy)) : [primary];
		for (const action of actions) {
			const post = message(payload, action, event);
			if (post) list.push(post);
		}
	}
	return { posts: list };
}

export const clubhouse: Integration = { name: "clubhouse", displayName: "Clubhouse", handle };
