// The emails a test server wrote (with no SMTP_URL, the notifications service writes each as an
// RFC 5322 file into EMAIL_DIR, which the test servers set to `<data dir>/emails`), read back:
// headers unfolded and decoded, the text and HTML parts of the multipart body decoded.
import fs from "node:fs";
import path from "node:path";

export interface Mail {
	to: string;
	subject: string;
	/** The text part, decoded. */
	body: string;
	/** The HTML part, decoded ("" when there is none). */
	html: string;
	headers: Record<string, string>;
	/** The first link to the test organization (http://chat.test) in the text, if any. */
	link: string | null;
	/** The whole message as written. */
	text: string;
}

/** RFC 2047 encoded words (=?UTF-8?Q?...?= and =?UTF-8?B?...?=). */
function decodeWords(value: string): string {
	return value.replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=\s*(?==\?)?/g, (_m, _charset: string, enc: string, data: string) =>
		enc.toUpperCase() === "B" ? Buffer.from(data, "base64").toString("utf8") : quotedPrintable(data.replace(/_/g, " ")),
	);
}

function quotedPrintable(s: string): string {
	const bytes: number[] = [];
	const text = s.replace(/=\r?\n/g, "");
	for (let i = 0; i < text.length; i++) {
		if (text[i] === "=" && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
			bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
			i += 2;
		} else bytes.push(...Buffer.from(text[i], "utf8"));
	}
	return Buffer.from(bytes).toString("utf8");
}

/** A MIME entity: its headers (lower-case names) and raw body. */
function entity(raw: string): { headers: Record<string, string>; body: string } {
	const split = raw.indexOf("\r\n\r\n");
	const head = split < 0 ? raw : raw.slice(0, split);
	const headers: Record<string, string> = {};
	for (const line of head.replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
		const colon = line.indexOf(":");
		if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = decodeWords(line.slice(colon + 1).trim());
	}
	return { headers, body: split < 0 ? "" : raw.slice(split + 4) };
}

function decodeBody(e: { headers: Record<string, string>; body: string }): string {
	const enc = (e.headers["content-transfer-encoding"] ?? "").toLowerCase();
	if (enc === "quoted-printable") return quotedPrintable(e.body);
	if (enc === "base64") return Buffer.from(e.body.replace(/\s+/g, ""), "base64").toString("utf8");
	return e.body;
}

/** The text and HTML parts of a message (one level of multipart/alternative, as the server sends). */
function parts(e: { headers: Record<string, string>; body: string }): { text: string; html: string } {
	const type = e.headers["content-type"] ?? "text/plain";
	const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
	if (!type.toLowerCase().startsWith("multipart/") || !boundary) return { text: decodeBody(e), html: "" };
	const out = { text: "", html: "" };
	for (const chunk of e.body.split(`--${boundary}`).slice(1)) {
		if (chunk.startsWith("--")) break;
		const part = entity(chunk.replace(/^\r\n/, "").replace(/\r\n$/, ""));
		const partType = (part.headers["content-type"] ?? "").toLowerCase();
		if (partType.startsWith("text/plain")) out.text = decodeBody(part);
		else if (partType.startsWith("text/html")) out.html = decodeBody(part);
	}
	return out;
}

/** One message as written (or as an SMTP server received it). */
export function parseMail(text: string): Mail {
	const e = entity(text);
	const { text: body, html } = parts(e);
	return { to: e.headers.to ?? "", subject: e.headers.subject ?? "", body, html, headers: e.headers, link: /(http:\/\/chat\.test\/[^\s>]+)/.exec(body)?.[1] ?? null, text };
}

/** Every email written into `dataDir`'s outbox, oldest first; `to` keeps only those to that address. */
export function sentEmails(dataDir: string, to?: string): Mail[] {
	const dir = path.join(dataDir, "emails");
	if (!fs.existsSync(dir)) return [];
	const all = fs
		.readdirSync(dir)
		.sort()
		.map((f) => parseMail(fs.readFileSync(path.join(dir, f), "utf8")));
	return to === undefined ? all : all.filter((m) => m.to === to);
}

/** The link in the newest email to `to`; throws when there is none. */
export function lastLinkTo(dataDir: string, to: string): string {
	const link = sentEmails(dataDir, to).at(-1)?.link;
	if (!link) throw new Error(`no email with a link to ${to}`);
	return link;
}
