// GET /messages/{message_id}/history: the message as first sent, then one snapshot per edit or
// move, oldest first; content edits carry an HTML diff from a well-kept diff library.
import htmldiff from "node-htmldiff";
import type { MessageDoc } from "./models/message";

export interface Snapshot {
	topic: string;
	content: string;
	rendered_content: string;
	timestamp: number;
	user_id: number;
	prev_topic?: string;
	stream?: number;
	prev_stream?: number;
	prev_content?: string;
	prev_rendered_content?: string;
	content_html_diff?: string;
}

/** Zulip's diff markup: spans rather than <ins>/<del>. */
function contentDiff(before: string, after: string): string {
	return htmldiff(before, after)
		.replace(/<ins[^>]*>/g, '<span class="highlight_text_inserted">')
		.replace(/<\/ins>/g, "</span>")
		.replace(/<del[^>]*>/g, '<span class="highlight_text_deleted">')
		.replace(/<\/del>/g, "</span>");
}

export function messageHistory(m: MessageDoc, showTopic: (t: string) => string): Snapshot[] {
	// Undo every edit, newest first, to find the message as sent.
	let content = m.content;
	let rendered = m.rendered_content;
	let topic = m.topic;
	for (const e of [...m.edit_history].reverse()) {
		if (e.prev_content !== undefined) {
			content = e.prev_content;
			rendered = e.prev_rendered_content ?? rendered;
		}
		if (e.prev_topic !== undefined) topic = e.prev_topic;
	}
	const out: Snapshot[] = [{ topic: showTopic(topic), content, rendered_content: rendered, timestamp: m.timestamp, user_id: m.sender_id }];
	// Then replay them, oldest first, recording the state after each.
	for (const e of m.edit_history) {
		const snap: Snapshot = { topic: "", content: "", rendered_content: "", timestamp: e.timestamp, user_id: e.user_id };
		if (e.prev_topic !== undefined) {
			snap.prev_topic = showTopic(e.prev_topic);
			topic = e.topic ?? topic;
		}
		if (e.prev_stream !== undefined) {
			snap.prev_stream = e.prev_stream;
			snap.stream = e.stream;
		}
		if (e.prev_content !== undefined) {
			const next = nextContent(m, e);
			snap.prev_content = e.prev_content;
			snap.prev_rendered_content = e.prev_rendered_content;
			snap.content_html_diff = contentDiff(e.prev_rendered_content ?? "", next.rendered);
			content = next.content;
			rendered = next.rendered;
		}
		Object.assign(snap, { topic: showTopic(topic), content, rendered_content: rendered });
		out.push(snap);
	}
	return out;
}

/** The content right after edit `e`: the next content edit's "prev", or the current content. */
function nextContent(m: MessageDoc, e: MessageDoc["edit_history"][number]): { content: string; rendered: string } {
	const later = m.edit_history.slice(m.edit_history.indexOf(e) + 1).find((x) => x.prev_content !== undefined);
	return later ? { content: later.prev_content!, rendered: later.prev_rendered_content ?? "" } : { content: m.content, rendered: m.rendered_content };
}
