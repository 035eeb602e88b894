// Slack's message markup as Zulip's Markdown (zerver/data_import/slack_message_conversion.py):
// links, mailto links, bold/italic/strikethrough, Block Kit blocks and legacy attachments.
import type { Wild } from "../payload";
import { badRequest } from "../../../../shared/errors";

const LINK = /(<)(http:\/\/www\.|https:\/\/www\.|http:\/\/|https:\/\/|ftp:\/\/)?([a-z0-9]+([-.]{1}[a-z0-9]+)*)(\.)([a-z]{2,63}(:[0-9]{1,5})?)(\/[^>]*)?(\|)?(?:\|([^>]+))?(>)/g;
const WORD = "[\\p{L}\\p{N}\\p{M}\\p{Pc}.-]";
const MAILTO = new RegExp(`<((mailto:)?(${WORD}+@${WORD}+(\\.[\\p{L}\\p{N}\\p{M}\\p{Pc}]+)+))(\\|)?(${WORD}+@${WORD}+(\\.[\\p{L}\\p{N}\\p{M}\\p{Pc}]+)+)?>`, "gu");

/** '<https://foo.com>' → 'https://foo.com', '<https://foo.com|foo>' → '[foo](https://foo.com)'; mailto links unwrapped. */
export function replaceLinks(text: string): string {
	for (const m of [...text.matchAll(LINK)]) {
		const parts = m[0].slice(1, -1).split("|");
		const converted = parts.length >= 2 ? `[${parts.slice(1).join("|")}](${parts[0]})` : parts[0];
		text = text.replaceAll(m[0], converted);
	}
	for (const m of [...text.matchAll(MAILTO)]) text = text.replaceAll(m[0], m[1]);
	return text;
}

/** Slack's `*bold*`, `~strike~`, `_italic_`, only at word boundaries as Slack formats them. */
function emphasis(mark: string): RegExp {
	const m = mark === "*" ? "\\*" : mark;
	return new RegExp(`((?![${m}\`@\\\\\\p{Pf}\\p{Pe}])[\\p{P}\\p{Zs}\\p{S}]|^)(${m})([^${m}]+)(${m})((?![${m}\`@\\\\\\p{Pi}\\p{Ps}])(?=[\\p{P}\\p{Zs}\\p{S}]|$))`, "gmu");
}

const EMPHASIS: Array<[RegExp, string]> = [
	[emphasis("*"), "**"],
	[emphasis("~"), "~~"],
	[emphasis("_"), "*"],
];

export function convertSlackFormatting(text: string): string {
	for (const [re, zulip] of EMPHASIS) text = text.replace(re, (_all, before: string, _open: string, inner: string) => `${before}${zulip}${inner}${zulip}`);
	return text;
}

const BLOCK_TYPES = ["actions", "context", "call", "contact_card", "condition", "divider", "file", "header", "image", "input", "section", "table", "rich_text"] as const;
const UNHANDLED = new Set(["call", "contact_card", "file", "table", "actions", "rich_text"]);

/** Slack's mrkdwn as Zulip's Markdown: links, then emphasis. */
export const slackToMarkdown = (text: string) => convertSlackFormatting(replaceLinks(text));

/** A text object ({type: plain_text or mrkdwn, text}); mrkdwn converted. */
function textOf(w: Wild, plainOnly = false): string {
	const type = w.at("type").oneOf(plainOnly ? ["plain_text"] : ["plain_text", "mrkdwn"]);
	const text = w.at("text").str();
	return type === "mrkdwn" ? slackToMarkdown(text) : text;
}

const joined = (pieces: string[]) =>
	pieces
		.map((p) => p.trim())
		.filter((p) => p !== "")
		.join("\n\n");

function renderElement(e: Wild): string {
	if (e.at("type").str() !== "image") return "";
	return `[${e.at("alt_text").str()}](${url(e.at("image_url"))})`;
}

function url(w: Wild): string {
	const v = w.str();
	try {
		new URL(v);
	} catch {
		throw badRequest(`${w.name} is not a URL`);
	}
	return v;
}

export function renderBlock(block: Wild): string {
	const type = block.at("type").oneOf(BLOCK_TYPES);
	if (UNHANDLED.has(type)) return "";
	if (type === "context" && block.get("elements").truthy) {
		return joined(block.at("elements").list().map((e) => (e.at("type").oneOf(["image", "plain_text", "mrkdwn"]) === "image" ? renderElement(e) : textOf(e))));
	}
	if (type === "divider") return "----";
	if (type === "header") return `## ${textOf(block.at("text"), true)}`;
	if (type === "image") {
		const alt = block.has("title") ? textOf(block.at("title"), true) : block.at("alt_text").str();
		return `[${block.has("title") ? alt : block.at("alt_text").str()}](${url(block.at("image_url"))})`;
	}
	if (type !== "section") return "";
	const pieces: string[] = [];
	if (block.has("text")) pieces.push(textOf(block.at("text")));
	if (block.has("accessory")) pieces.push(renderElement(block.at("accessory")));
	if (block.has("fields")) {
		const fields = block.at("fields").list().map((f) => textOf(f));
		if (fields.length === 1) pieces.push(fields[0]);
		else {
			const cells = fields.map((f) => f.replaceAll("\n", " ").replaceAll("|", " "));
			let table = "| | |\n|-|-|\n";
			for (let i = 0; i < cells.length; i += 2) table += `| ${cells[i]} | ${cells[i + 1] ?? ""} |\n`;
			pieces.push(table);
		}
	}
	return joined(pieces);
}

export function renderAttachment(a: Wild): string {
	const pieces: string[] = [];
	if (a.get("title").truthy) {
		const title = a.at("title").str();
		pieces.push(a.get("title_link").truthy ? `## [${title}](${url(a.at("title_link"))})` : `## ${title}`);
	}
	if (a.get("pretext").truthy) pieces.push(slackToMarkdown(a.at("pretext").str()));
	if (a.get("text").truthy) pieces.push(slackToMarkdown(a.at("text").str()));
	if (a.has("fields")) {
		const fields: string[] = [];
		for (const f of a.at("fields").list()) {
			const title = f.get("title");
			const value = f.get("value");
			if (title.truthy && value.truthy) fields.push(`*${title.str()}*: ${value.str()}`);
			else if (title.truthy) fields.push(`*${title.str()}*`);
			else if (value.truthy) fields.push(value.str());
		}
		pieces.push(slackToMarkdown(fields.join("\n")));
	}
	if (a.get("blocks").truthy) pieces.push(...a.at("blocks").list().map(renderBlock));
	if (a.get("image_url").truthy) {
		const raw = a.at("image_url").str();
		let image: string;
		try {
			image = url(a.at("image_url"));
		} catch {
			image = encodeURI(raw);
		}
		pieces.push(`[](${image})`);
	}
	if (a.get("footer").truthy) pieces.push(a.at("footer").str());
	if (a.get("ts").truthy) {
		const ts = a.at("ts");
		const seconds = typeof ts.value === "number" ? ts.int() : Math.trunc(Number(ts.str()));
		if (!Number.isFinite(seconds)) throw badRequest(`${ts.name} is not an integer`);
		pieces.push(`<time:${seconds}>`);
	}
	return joined(pieces);
}
