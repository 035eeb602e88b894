// A message's text as a push notification shows it: Zulip's get_mobile_push_content and
// truncate_content (zerver/lib/push_notifications.py), from the rendered HTML. Emoji become their
// characters, images their alt text, quotes "> " lines, ordered lists numbered, spoilers their
// header and "(…)"; a message that mixes quotes (or "@user [said](link):" lines) with its own
// words shows each run of quoted matter as "[…]". The walk follows lxml's model of an element:
// its text (before its first child), its children, and its tail (the text after it).
import { parseDocument } from "htmlparser2";
import type { AnyNode, Element } from "domhandler";

/** Zulip truncates at 200 characters (code points) and adds "…". */
const MAX_CHARS = 200;

const isElement = (n: AnyNode | null | undefined): n is Element => !!n && (n.type === "tag" || n.type === "script" || n.type === "style");
const classOf = (el: Element) => el.attribs.class ?? "";
const hasClass = (el: Element, c: string) => classOf(el).split(/\s+/).includes(c);
const elementChildren = (el: Element) => el.children.filter(isElement);

/** Text nodes from `n` on, up to the next element (lxml's text of a parent, or tail of an element). */
function textRun(n: AnyNode | null): string {
	let out = "";
	for (; n && !isElement(n); n = n.next) if (n.type === "text") out += n.data;
	return out;
}

const leadingText = (el: Element) => textRun(el.children[0] ?? null);
const tail = (el: Element) => textRun(el.next);

/** All text inside, as lxml's text_content. */
function textContent(n: AnyNode): string {
	if (n.type === "text") return n.data;
	return "children" in n ? n.children.map(textContent).join("") : "";
}

function descendants(el: Element): Element[] {
	return elementChildren(el).flatMap((c) => [c, ...descendants(c)]);
}

/** Zulip's hex_codepoint_to_emoji: "1f1fa-1f1f8" is two code points; null when not hex. */
function emojiOf(code: string): string | null {
	const parts = code.split("-");
	if (!parts.every((p) => /^[0-9a-f]{1,6}$/i.test(p))) return null;
	try {
		return String.fromCodePoint(...parts.map((p) => parseInt(p, 16)));
	} catch {
		return null;
	}
}

function getText(el: Element): string {
	const classes = classOf(el);
	if (classes.includes("emoji")) {
		const m = /emoji-(\S+)/.exec(classes);
		const emoji = m ? emojiOf(m[1]) : null;
		if (emoji !== null) return emoji;
	}
	if (el.name === "img") return el.attribs.alt ?? "";
	if (el.name === "blockquote") return "";
	return leadingText(el);
}

const formatAsQuote = (text: string) =>
	text
		.split(/\r\n|\r|\n/)
		.filter(Boolean)
		.map((line) => `> ${line}\n`)
		.join("");

function renderOlist(ol: Element): string {
	let counter = ol.attribs.start ? parseInt(ol.attribs.start, 10) || 1 : 1;
	let nested = 0;
	for (let p = ol.parent; p && p.type !== "root"; p = p.parent) if (isElement(p) && p.name === "ol") nested++;
	const indent = nested ? "\n" + "  ".repeat(nested) : "";
	return elementChildren(ol)
		.map((li) => `${indent}${counter++}. ${processEl(li).trim()}`)
		.join("\n");
}

function renderSpoiler(el: Element): string {
	const header = descendants(el).find((d) => hasClass(d, "spoiler-header"));
	const text = header ? processEl(header).trim() : "";
	return text ? `${text} (…)\n` : "(…)\n";
}

function processEl(el: Element): string {
	if (el.name === "ol") return renderOlist(el);
	if (classOf(el).includes("spoiler-block")) return renderSpoiler(el);
	let sub = elementChildren(el).map(processEl).join("");
	if (el.name === "blockquote") sub = formatAsQuote(sub);
	return getText(el) + sub + tail(el);
}

/** A link to a message of this server: "#narrow/.../near/ID" (or /with/), relative or on the organization's URL. */
function isMessageLink(href: string, realmUrl: string): boolean {
	if (!URL.canParse(href, realmUrl)) return false;
	const url = new URL(href, realmUrl);
	return url.origin === new URL(realmUrl).origin && url.hash.startsWith("#narrow/") && /\/(near|with)\/\d+/.test(url.hash);
}

/** Zulip's is_user_said_paragraph: exactly "@user [said](message link):". */
function isUserSaid(el: Element, realmUrl: string): boolean {
	const all = descendants(el);
	const mentions = all.filter((d) => hasClass(d, "user-mention"));
	if (mentions.length !== 1) return false;
	const links = all.filter((d) => d.name === "a" && d.attribs.href !== undefined && isMessageLink(d.attribs.href, realmUrl));
	if (links.length !== 1) return false;
	return textContent(el).replace(textContent(mentions[0]), "").replace(textContent(links[0]), "").trim() === ":";
}

/** Zulip's potentially_collapse_quotes, on the top-level elements: a lone run of quotes is kept when it is all there is. */
function collapseQuotes(root: Element, realmUrl: string): void {
	const children = elementChildren(root);
	const collapsible = children.map((c) => c.name === "blockquote" || isUserSaid(c, realmUrl));
	if (collapsible.every(Boolean) || !collapsible.some(Boolean)) return;
	children.forEach((child, i) => {
		if (!collapsible[i]) return;
		const parentChildren = root.children;
		const at = parentChildren.indexOf(child);
		if (i > 0 && collapsible[i - 1]) {
			// lxml's drop_tree: the element goes, its tail stays.
			parentChildren.splice(at, 1);
		} else {
			// lxml's replace: the element goes with its tail; a "[…]" paragraph takes its place.
			let end = at + 1;
			while (end < parentChildren.length && !isElement(parentChildren[end])) end++;
			const p = parseDocument("<p>[…]</p>").children[0] as Element;
			parentChildren.splice(at, end - at, p);
			p.parent = root;
		}
		parentChildren.forEach((n, k) => {
			n.prev = parentChildren[k - 1] ?? null;
			n.next = parentChildren[k + 1] ?? null;
		});
	});
}

/** The notification text of a message's rendered HTML (Zulip's get_mobile_push_content). */
export function mobilePushContent(renderedHtml: string, realmUrl: string): string {
	const root = parseDocument(`<div>${renderedHtml}</div>`).children[0] as Element;
	collapseQuotes(root, realmUrl);
	return processEl(root);
}

/** Zulip's truncate_content: at most 200 characters, then "…". */
export function truncateContent(content: string): { content: string; truncated: boolean } {
	const chars = [...content];
	if (chars.length <= MAX_CHARS) return { content, truncated: false };
	return { content: chars.slice(0, MAX_CHARS).join("") + "…", truncated: true };
}
