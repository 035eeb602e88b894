// Pivotal Tracker (zerver/webhooks/pivotal/view.py): its activity web hook in either version, read
// as Zulip reads it: first as v3 (XML; the story's name is the first quoted string of the
// activity's description, topic that name), and when that fails as v5 (JSON; topic
// "#<story id>: <story name>", the changes listed). An activity that yields no text (v5's known but
// unrendered kinds, a comment event without a comment) is Zulip's "Unable to handle Pivotal payload".
// Zulip answers a body that is neither with a 500; this server with that 400.
import { badRequest } from "../../../../shared/errors";
import { parseJson, posts, UnsupportedEvent, type Integration, type Post, type WebhookRequest } from "../integration";
import { Wild } from "../payload";
import { pyStr } from "../toolkit/common";
import { parseXml, type XmlElement } from "../toolkit/xml";

const UNABLE = "Unable to handle Pivotal payload";

/** The text at a path of child tags; "" where a tag is missing (Zulip's get_text). */
function textAt(root: XmlElement, tags: string[]): string {
	let at = root;
	for (const tag of tags) {
		const child = at.find(tag);
		if (!child) return "";
		at = child;
	}
	if (at.text === null) throw new Error("element without text");
	return at.text;
}

function required(root: XmlElement, tag: string): string | null {
	const el = root.find(tag);
	if (!el) throw new Error(`no ${tag}`);
	return el.text;
}

/** A v3 activity, or null where Zulip's v3 reading fails (and it tries v5). */
function v3(body: string): Post | null {
	const root = parseXml(body);
	if (!root) return null;
	try {
		const eventType = required(root, "event_type");
		const description = required(root, "description");
		if (description === null) return null;
		const projectId = required(root, "project_id");
		const storyId = textAt(root, ["stories", "story", "id"]);
		const url = `https://www.pivotaltracker.com/s/projects/${pyStr(projectId)}/stories/${storyId}`;
		const name = /^[^"]+"([^"]+)"/.exec(description)?.[1] ?? "Story changed";
		const moreInfo = ` [(view)](${url}).`;
		const event = `${pyStr(eventType)}_v3`;
		if (eventType === "story_update") return { topic: name, content: description + moreInfo, event };
		if (eventType === "note_create") return { topic: "Comment added", content: description + moreInfo, event };
		if (eventType === "story_create") {
			const story = (tag: string) => textAt(root, ["stories", "story", tag]);
			const [desc, type, status] = [story("description"), story("story_type"), story("current_state")];
			const estimate = story("estimate");
			const worth = estimate === "" ? "" : ` worth ${estimate} story points`;
			return { topic: name, content: `${description} (${status} ${type}${worth}):\n\n~~~ quote\n${desc}\n~~~\n\n${moreInfo}`, event };
		}
		return null;
	} catch {
		return null;
	}
}

/** v5 kinds Zulip knows and does not render: nothing to post, so Zulip's "Unable to handle". */
const UNRENDERED_KINDS = new Set([
	"task_create_activity",
	"comment_delete_activity",
	"task_delete_activity",
	"task_update_activity",
	"story_move_from_project_activity",
	"story_delete_activity",
	"story_move_into_project_activity",
	"epic_update_activity",
	"label_create_activity",
]);

const comment = (change: Wild): Wild | null => {
	if (change.get("kind").value !== "comment") return null;
	const text = change.get("new_values", {}).get("text");
	return text.present ? text : null;
};

function stateChange(old: Wild, now: Wild): [string, string] | null {
	return old.has("current_state") && now.has("current_state") ? [pyStr(old.at("current_state").value), pyStr(now.at("current_state").value)] : null;
}

function v5(payload: Wild): Post {
	const kind = payload.at("kind").str();
	const project = payload.at("project");
	const story = payload.at("primary_resources").item(0);
	const [storyUrl, storyType, storyId, storyName] = [story.at("url"), story.get("story_type"), story.at("id"), story.at("name")].map((w) => pyStr(w.value));
	const performedBy = pyStr(payload.get("performed_by", {}).get("name", "").value);
	const storyInfo = `[${pyStr(project.at("name").value)}](https://www.pivotaltracker.com/s/projects/${pyStr(project.at("id").value)}): [${storyName}](${storyUrl})`;
	const changes = payload.get("changes", []).list();
	let content = "";
	if (kind === "story_update_activity") {
		content += `${performedBy} updated ${storyInfo}:\n`;
		for (const change of changes) {
			const old = change.get("original_values", {});
			const now = change.at("new_values");
			const state = stateChange(old, now);
			if (state) content += `* state changed from **${state[0]}** to **${state[1]}**\n`;
			if (old.has("estimate") && now.has("estimate")) {
				const was = old.at("estimate");
				const estimate = was.present ? `changed from ${pyStr(was.value)} to` : "is now";
				const next = now.at("estimate");
				content += `* estimate ${estimate} **${next.present ? pyStr(next.value) : "0"} points**\n`;
			}
			if (old.has("story_type") && now.has("story_type")) content += `* type changed from **${pyStr(old.at("story_type").value)}** to **${pyStr(now.at("story_type").value)}**\n`;
			const text = comment(change);
			if (text) content += `* Comment added:\n~~~quote\n${pyStr(text.value)}\n~~~\n`;
		}
	} else if (kind === "comment_create_activity") {
		for (const change of changes) {
			const text = comment(change);
			if (text) content += `${performedBy} added a comment to ${storyInfo}:\n~~~quote\n${pyStr(text.value)}\n~~~`;
		}
	} else if (kind === "story_create_activity") {
		content += `${performedBy} created ${storyType}: ${storyInfo}\n`;
		for (const change of changes) {
			const now = change.get("new_values", {});
			if (now.has("current_state")) content += `* State is **${pyStr(now.at("current_state").value)}**\n`;
			if (now.has("description")) content += `* Description is\n\n> ${pyStr(now.at("description").value)}`;
		}
	} else if (kind === "story_move_activity") {
		content = `${performedBy} moved ${storyInfo}`;
		for (const change of changes) {
			const state = stateChange(change.get("original_values", {}), change.at("new_values"));
			if (state) content += ` from **${state[0]}** to **${state[1]}**.`;
		}
	} else if (!UNRENDERED_KINDS.has(kind)) throw new UnsupportedEvent(kind);
	return { topic: `#${storyId}: ${storyName}`, content, event: `${kind}_v5` };
}

function handle(req: WebhookRequest) {
	let post = v3(req.body);
	if (!post) {
		let json: unknown;
		try {
			json = parseJson(req.body);
		} catch {
			throw badRequest(UNABLE);
		}
		post = v5(new Wild(json));
	}
	if (!post.content) throw badRequest(UNABLE);
	return posts(post);
}

export const pivotal: Integration = { name: "pivotal", displayName: "Pivotal", handle };
