// What every email shares: the text and HTML parts built from one list of blocks (so the two say
// the same), the sender's name, and the footer with an unsubscribe link for the kinds that have one.
import { escapeHtml } from "../../../shared/html";

/** A paragraph of text, a link (shown as a button in HTML), a list of facts, or a part written for each (messages as rendered). */
export type Block = string | { link: string; label: string } | { items: string[] } | { text: string; html: string };

export interface Rendered {
	subject: string;
	text: string;
	html: string;
	/** The sender's display name (the address is NOREPLY_EMAIL). */
	from_name: string;
}

/** The kinds of email a recipient may turn off by a link in them (Zulip's unsubscribe email types). */
export type UnsubscribeType = "login" | "welcome" | "digest" | "missed_messages";

export interface Footer {
	/** The unsubscribe link and what it turns off, for the kinds that have one. */
	unsubscribe?: { link: string; what: string };
}

const textOf = (b: Block): string => (typeof b === "string" ? b : "link" in b ? `${b.label}:\n    <${b.link}>` : "items" in b ? b.items.map((i) => `* ${i}`).join("\n") : b.text);

const htmlOf = (b: Block): string =>
	typeof b === "string"
		? `<p>${escapeHtml(b).replace(/\n/g, "<br />")}</p>`
		: "link" in b
			? `<p><a class="button" href="${escapeHtml(b.link)}">${escapeHtml(b.label)}</a></p>`
			: "items" in b
				? `<ul>${b.items.map((i) => `<li>${escapeHtml(i)}</li>`).join("")}</ul>`
				: b.html;

/** Both parts of an email whose body is `blocks`. */
export function compose(subject: string, from_name: string, blocks: Block[], footer: Footer = {}): Rendered {
	const unsub = footer.unsubscribe;
	const text = blocks.map(textOf).join("\n\n") + (unsub ? `\n\n--\nUnsubscribe from ${unsub.what}: <${unsub.link}>` : "") + "\n";
	const html = [
		'<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>',
		'<body style="font-family: sans-serif; line-height: 1.5;">',
		...blocks.map(htmlOf),
		unsub ? `<hr /><p style="font-size: small;"><a href="${escapeHtml(unsub.link)}">Unsubscribe from ${escapeHtml(unsub.what)}</a></p>` : "",
		"</body></html>",
	].join("\n");
	return { subject: subject.replace(/[\r\n]+/g, " "), text, html, from_name };
}

/** "Monday, January 5, 2026 at 14:05 UTC" (Zulip's login_time), in `timeZone` when it is one Intl knows. */
export function longTime(ms: number, timeZone: string, twentyFour: boolean): string {
	const zone = timeZone && validZone(timeZone) ? timeZone : "UTC";
	const parts = new Intl.DateTimeFormat("en-US", { timeZone: zone, weekday: "long", year: "numeric", month: "long", day: "numeric" }).format(ms);
	const time = new Intl.DateTimeFormat("en-US", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: twentyFour ? "h23" : "h12", timeZoneName: "short" }).format(ms);
	return `${parts} at ${time}`;
}

function validZone(zone: string): boolean {
	try {
		new Intl.DateTimeFormat("en-US", { timeZone: zone });
		return true;
	} catch {
		return false;
	}
}

/** " The link works until Mon, 05 Jan 2026 14:05:00 GMT." for a link that expires; "" for one that does not. */
export const expiry = (at: number | null): string => (at === null ? "" : ` The link works until ${new Date(at * 1000).toUTCString()}.`);
