// Zulip's check_send_webhook_message: the event filters (only_events, exclude_events: shell
// wildcards), then the channel the URL names (by name or ID, the URL's `topic` over the
// integration's), or without `stream` a direct message to the bot's owner. A channel that does not
// exist is not an error for the tool: the owner is told and the request succeeds. Every message is
// checked before the first is sent, so a request posts all of its messages or none.
import { call, type Ctx, type WebhookSender } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { LIMITS } from "../../../shared/version";
import type { Integration, Post } from "./integration";
import { missingChannelNotice, notifyOwner } from "./owner-notices";

/** Python's fnmatch.fnmatch (case-sensitive, as on POSIX). */
export function fnmatch(name: string, pattern: string): boolean {
	let re = "";
	for (let i = 0; i < pattern.length; i++) {
		const c = pattern[i];
		if (c === "*") re += ".*";
		else if (c === "?") re += ".";
		else if (c === "[") {
			const end = pattern.indexOf("]", i + 2);
			if (end < 0) re += "\\[";
			else {
				let set = pattern.slice(i + 1, end).replace(/\\/g, "\\\\");
				if (set.startsWith("!")) set = `^${set.slice(1)}`;
				re += `[${set}]`;
				i = end;
			}
		} else re += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
	}
	return new RegExp(`^${re}$`, "s").test(name);
}

function eventList(params: Record<string, string>, name: string): string[] | null {
	const raw = params[name];
	if (raw === undefined) return null;
	let v: unknown;
	try {
		v = JSON.parse(raw);
	} catch {
		throw badRequest(`${name} is not valid JSON`);
	}
	if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) throw badRequest(`${name} is not a list of strings`);
	return v as string[];
}

/** The event filters of a webhook URL, read before anything is posted. */
export function eventFilter(params: Record<string, string>): (event: string | undefined) => boolean {
	const only = eventList(params, "only_events");
	const exclude = eventList(params, "exclude_events");
	return (event) => {
		if (event === undefined) return true;
		if (only && only.every((p) => !fnmatch(event, p))) return false;
		return !(exclude && exclude.some((p) => fnmatch(event, p)));
	};
}

/** Cuts text to `max` characters, the marker included (Zulip's truncate_content). */
export function truncate(text: string, max: number, marker: string): string {
	const chars = [...text];
	return chars.length <= max ? text : chars.slice(0, max - [...marker].length).join("") + marker;
}

export type Target = { type: "stream"; to: string | number } | { type: "private"; to: number[] };

/** Where the URL sends messages: its channel (a name, or an ID in digits), else the bot's owner. */
export function targetOf(params: Record<string, string>, bot: WebhookSender, integration: Integration): Target {
	let stream = params.stream;
	if (stream === undefined) {
		if (bot.bot_owner_id === null) throw badRequest("Missing 'stream' argument");
		return { type: "private", to: [bot.bot_owner_id] };
	}
	if (integration.unquoteUrlParameters) stream = safeUnquote(stream);
	return { type: "stream", to: /^[0-9]+$/.test(stream) ? Number(stream) : stream };
}

const safeUnquote = (s: string) => {
	try {
		return decodeURIComponent(s);
	} catch {
		return s;
	}
};

/** A post as it will be stored: the URL's topic over the integration's, both cut as Zulip cuts them. */
export function finalPost(post: Post, params: Record<string, string>, integration: Integration): { topic: string; content: string; directTo?: number } {
	let topic = params.topic ?? post.topic;
	if (params.topic !== undefined && integration.unquoteUrlParameters) topic = safeUnquote(topic);
	return {
		directTo: post.directTo,
		topic: truncate(topic, LIMITS.max_topic_length, "..."),
		// Zulip's normalize_body: no leading blank lines.
		content: truncate(post.content.replace(/^\n+/, ""), LIMITS.max_message_length, "\n[message truncated]"),
	};
}

const isMissingChannel = (err: unknown) => (err as { type?: string })?.type === "STREAM_DOES_NOT_EXIST";

/** Sends the posts as the bot, in order, with the integration's client name. */
export async function deliver(ctx: Ctx<any>, bot: WebhookSender, integration: Integration, target: Target, list: Array<{ topic: string; content: string; directTo?: number }>): Promise<void> {
	const meta = { user: bot, client: `Zulip${integration.displayName}Webhook` };
	const messages = list.map((m) =>
		m.directTo !== undefined
			? { type: "private", to: [m.directTo], content: m.content }
			: target.type === "stream"
				? { type: "stream", to: target.to, topic: m.topic, content: m.content }
				: { type: "private", to: target.to, content: m.content },
	);
	try {
		// Several messages: each is checked as POST /messages would before the first is stored.
		if (messages.length > 1) for (const m of messages) await call(ctx, "messages.checkSend", m, { meta });
		for (const m of messages) await call(ctx, "messages.send", m, { meta });
	} catch (err) {
		if (target.type !== "stream" || !isMissingChannel(err)) throw err;
		await notifyOwner(ctx, bot, missingChannelNotice(bot, target.to));
	}
}
