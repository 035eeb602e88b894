// Taiga (zerver/webhooks/taiga/view.py): what happened to an epic, user story, task, issue or
// sprint, one line per change of the event (sorted, as Zulip sorts them), in the sprint's name as
// topic or "General". Changes of fields Zulip does not render are left out; an event with none
// left is an empty message, which Zulip refuses as such.
import { posts, type Integration, type WebhookRequest } from "../integration";
import type { Wild } from "../payload";
import { pyStr } from "../toolkit/common";

type Values = Record<string, string | null>;
type Template = (v: Values) => string;

/** A template's placeholder: a value it needs and the event lacks is a malformed payload. */
function v(values: Values, key: string): string {
	if (!Object.hasOwn(values, key)) throw new Error(`no ${key} for the template`);
	return pyStr(values[key]);
}

// The wording each kind shares; each kind's own follows in TEMPLATES.
const assignment = (kind: string): Record<string, Template> => ({
	set_assigned_to: (x) => `${v(x, "user")} assigned ${kind} ${v(x, "subject")} to ${v(x, "new")}.`,
	unset_assigned_to: (x) => `${v(x, "user")} unassigned ${kind} ${v(x, "subject")}.`,
	changed_assigned_to: (x) => `${v(x, "user")} reassigned ${kind} ${v(x, "subject")} from ${v(x, "old")} to ${v(x, "new")}.`,
});
const simple = (kind: string, events: Record<string, string>): Record<string, Template> =>
	Object.fromEntries(Object.entries(events).map(([event, verb]) => [event, (x: Values) => `${v(x, "user")} ${verb} ${kind} ${v(x, "subject")}.`]));
const changed = (kind: string, what: string): Template => (x) => `${v(x, "user")} changed ${what} of ${kind} ${v(x, "subject")} from ${v(x, "old")} to ${v(x, "new")}.`;
const dueDates = (kind: string): Record<string, Template> => ({
	due_date: changed(kind, "due date"),
	set_due_date: (x) => `${v(x, "user")} set due date of ${kind} ${v(x, "subject")} to ${v(x, "new")}.`,
});
const CHANGES = { blocked: "blocked", unblocked: "unblocked", description_diff: "updated description of", commented: "commented on", delete: "deleted", create: "created" };

const TEMPLATES: Record<string, Record<string, Template>> = {
	epic: {
		...simple("epic", CHANGES),
		...assignment("epic"),
		changed_status: changed("epic", "status"),
		renamed: (x) => `${v(x, "user")} renamed epic from **${v(x, "old")}** to **${v(x, "new")}**.`,
	},
	relateduserstory: {
		create: (x) => `${v(x, "user")} added a related user story ${v(x, "userstory_subject")} to the epic ${v(x, "epic_subject")}.`,
		delete: (x) => `${v(x, "user")} removed a related user story ${v(x, "userstory_subject")} from the epic ${v(x, "epic_subject")}.`,
	},
	userstory: {
		...simple("user story", { ...CHANGES, points: "changed estimation of", closed: "closed", reopened: "reopened" }),
		...assignment("user story"),
		...dueDates("user story"),
		set_milestone: (x) => `${v(x, "user")} added user story ${v(x, "subject")} to sprint ${v(x, "new")}.`,
		unset_milestone: (x) => `${v(x, "user")} removed user story ${v(x, "subject")} from sprint ${v(x, "old")}.`,
		changed_milestone: changed("user story", "sprint"),
		changed_status: changed("user story", "status"),
		renamed: (x) => `${v(x, "user")} renamed user story from ${v(x, "old")} to **${v(x, "new")}**.`,
	},
	milestone: {
		...simple("sprint", { create: "created", delete: "deleted" }),
		renamed: (x) => `${v(x, "user")} renamed sprint from ${v(x, "old")} to **${v(x, "new")}**.`,
		estimated_start: (x) => `${v(x, "user")} changed estimated start of sprint ${v(x, "subject")} from ${v(x, "old")} to ${v(x, "new")}.`,
		estimated_finish: (x) => `${v(x, "user")} changed estimated finish of sprint ${v(x, "subject")} from ${v(x, "old")} to ${v(x, "new")}.`,
		set_estimated_start: (x) => `${v(x, "user")} changed estimated start of sprint ${v(x, "subject")} to ${v(x, "new")}.`,
		set_estimated_finish: (x) => `${v(x, "user")} set estimated finish of sprint ${v(x, "subject")} to ${v(x, "new")}.`,
	},
	task: {
		...simple("task", CHANGES),
		...assignment("task"),
		...dueDates("task"),
		changed_status: changed("task", "status"),
		renamed: (x) => `${v(x, "user")} renamed task ${v(x, "old")} to **${v(x, "new")}**.`,
		set_milestone: (x) => `${v(x, "user")} added task ${v(x, "subject")} to sprint ${v(x, "new")}.`,
		changed_us: (x) => `${v(x, "user")} moved task ${v(x, "subject")} from user story ${v(x, "old")} to ${v(x, "new")}.`,
	},
	issue: {
		...simple("issue", CHANGES),
		...assignment("issue"),
		...dueDates("issue"),
		set_milestone: (x) => `${v(x, "user")} added issue ${v(x, "subject")} to sprint ${v(x, "new")}.`,
		unset_milestone: (x) => `${v(x, "user")} detached issue ${v(x, "subject")} from sprint ${v(x, "old")}.`,
		changed_priority: changed("issue", "priority"),
		changed_severity: changed("issue", "severity"),
		changed_status: changed("issue", "status"),
		changed_type: changed("issue", "type"),
		renamed: (x) => `${v(x, "user")} renamed issue ${v(x, "old")} to **${v(x, "new")}**.`,
	},
	webhook_test: { test: (x) => `${v(x, "user")} triggered a test of the Taiga integration.` },
};

interface TaigaEvent {
	type: string;
	event: string;
	values: Values;
}

const link = (subject: string, data: Wild) => (data.has("permalink") ? `[${subject}](${data.at("permalink").str()})` : `**${subject}**`);

function displayUser(message: Wild): string {
	const by = message.at("by");
	return `[${by.at("full_name").str()}](${by.at("permalink").str()})`;
}

function subjectOf(message: Wild): string {
	const data = message.at("data");
	return link(data.get("subject").strOrNull() || data.at("name").str(), data);
}

function oldAndNew(message: Wild, field: string): { old: string | null; new: string | null } {
	const diff = message.path("change", "diff", field);
	return { old: diff.get("from").strOrNull(), new: diff.get("to").strOrNull() };
}

/** One change of a "change" event, or null for a field Zulip does not render (or a date left as it was). */
function changeEvent(field: string, message: Wild): TaigaEvent | null {
	const values: Values = { user: displayUser(message), subject: subjectOf(message) };
	let event: string;
	if (field === "description_diff" || field === "points") event = field;
	else if (field === "milestone" || field === "assigned_to") {
		const change = oldAndNew(message, field);
		if (!change.old) {
			event = `set_${field}`;
			values.new = change.new;
		} else if (!change.new) {
			event = `unset_${field}`;
			values.old = change.old;
		} else {
			event = `changed_${field}`;
			Object.assign(values, change);
		}
	} else if (field === "is_blocked") event = message.path("change", "diff", "is_blocked", "to").bool() ? "blocked" : "unblocked";
	else if (field === "is_closed") event = message.path("change", "diff", "is_closed", "to").bool() ? "closed" : "reopened";
	else if (field === "user_story") {
		event = "changed_us";
		Object.assign(values, oldAndNew(message, field));
	} else if (field === "subject" || field === "name") {
		event = "renamed";
		Object.assign(values, oldAndNew(message, field));
	} else if (field === "estimated_finish" || field === "estimated_start" || field === "due_date") {
		const change = oldAndNew(message, field);
		if (!change.old) {
			event = `set_${field}`;
			values.new = change.new;
		} else if (change.old !== change.new) {
			event = field;
			Object.assign(values, change);
		} else return null;
	} else if (["priority", "severity", "type", "status"].includes(field)) {
		event = `changed_${field}`;
		Object.assign(values, oldAndNew(message, field));
	} else return null;
	return { type: message.at("type").str(), event, values };
}

function events(message: Wild): TaigaEvent[] {
	const action = message.at("action").str();
	if (action === "create" || action === "delete") {
		const type = message.at("type").str();
		if (type === "relateduserstory") {
			const data = message.at("data");
			return [{ type, event: action, values: { user: displayUser(message), epic_subject: link(data.path("epic", "subject").str(), data.at("epic")), userstory_subject: link(data.path("user_story", "subject").str(), data.at("user_story")) } }];
		}
		return [{ type, event: action, values: { user: displayUser(message), subject: subjectOf(message) } }];
	}
	if (action === "change") {
		const found: TaigaEvent[] = [];
		const diff = message.path("change", "diff");
		if (diff.truthy) for (const field of diff.keys()) {
			const e = changeEvent(field, message);
			if (e) found.push(e);
		}
		if (message.path("change", "comment").str()) found.push({ type: message.at("type").str(), event: "commented", values: { user: displayUser(message), subject: subjectOf(message) } });
		return found;
	}
	if (action === "test") return [{ type: "webhook_test", event: "test", values: { user: displayUser(message) } }];
	return [];
}

function render(e: TaigaEvent): string {
	const template = TEMPLATES[e.type]?.[e.event];
	if (!template) throw new Error(`no template for ${e.type} ${e.event}`);
	return template(e.values);
}

function handle(req: WebhookRequest) {
	const message = req.json();
	const content = events(message)
		.map((e) => `${render(e)}\n`)
		.sort()
		.join("");
	const milestone = message.at("data").get("milestone");
	const topic = milestone.truthy && milestone.has("name") ? milestone.at("name").str() : "General";
	return posts({ topic, content });
}

export const taiga: Integration = { name: "taiga", displayName: "Taiga", handle };
