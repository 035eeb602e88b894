// What a bot's owner is told when its outgoing webhook fails, in Zulip's words (notify_bot_owner
// in zerver/lib/outgoing_webhook.py). Zulip sends it as a direct message from the bot itself.
import { narrowUrl } from "../../../shared/markdown/zulip-markdown";
import type { OutgoingJobDoc } from "./models/outgoing-job";

export interface NoticeFacts {
	status?: number;
	/** The answer's body: bytes (a failed status) or text (an answer Zulip could not use), shown as Python's repr. */
	response?: Buffer | string;
	failure?: string;
	exception?: Error;
}

/** Zulip's message_link_url: the message in its conversation. */
export function messageUrl(externalUrl: string, m: OutgoingJobDoc["message"]): string {
	if (m.type === "stream") return `${externalUrl}${narrowUrl(m.stream_id, String(m.display_recipient), String(m.subject))}/near/${m.id}`;
	const ids = (m.display_recipient as Array<{ id: number }>).map((r) => r.id).sort((a, b) => a - b);
	return `${externalUrl}/#narrow/dm/${ids.join(",")}-${ids.length >= 3 ? "group" : "dm"}/near/${m.id}`;
}

export function ownerNotice(externalUrl: string, botName: string, job: OutgoingJobDoc, f: NoticeFacts): string {
	let text = `[A message](${messageUrl(externalUrl, job.message)}) to your bot @_**${botName}** triggered an outgoing webhook.`;
	if (f.exception) text += `\nWhen trying to send a request to the webhook service, an exception of type ${f.exception.name} occurred:\n\`\`\`\n${f.exception.message}\n\`\`\``;
	else if (f.failure) text += `\n${f.failure}`;
	else if (f.status === 407) text += "\nThe URL configured for the webhook is for a private or disallowed network.";
	else if (f.status) text += `\nThe webhook got a response with status code *${f.status}*.`;
	if (f.response !== undefined && f.response.length) text += `\nThe response contains the following payload:\n\`\`\`\n${pyRepr(f.response)}\n\`\`\``;
	return text;
}

/** Python's repr() of a str, or of bytes (b'...'). */
export function pyRepr(v: Buffer | string): string {
	const bytes = Buffer.isBuffer(v);
	const text = bytes ? v.toString("latin1") : v;
	const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
	let out = "";
	for (const ch of text) {
		const c = ch.codePointAt(0)!;
		if (ch === "\\" || ch === quote) out += `\\${ch}`;
		else if (ch === "\n") out += "\\n";
		else if (ch === "\r") out += "\\r";
		else if (ch === "\t") out += "\\t";
		else if (c < 0x20 || c === 0x7f || (bytes && c > 0x7e)) out += `\\x${c.toString(16).padStart(2, "0")}`;
		else out += ch;
	}
	return `${bytes ? "b" : ""}${quote}${out}${quote}`;
}
