// Zulip's inline previews of uploaded images (zerver/lib/markdown InlineInterestingLinkProcessor
// with handle_image_inlining, and zerver/lib/thumbnail.py rewrite_thumbnailed_images): a link to an
// upload that is an image gets, after its paragraph, Zulip's
//   <div class="message_inline_image"><a href="URL" title="TEXT"><img data-original-content-type=...
//   data-original-dimensions="WxH" src="/user_uploads/thumbnail/PATH/840x560.webp"></a></div>
// What each upload is comes from the uploads service before rendering, one call for the whole
// message (`uploads.previews`); a link to any other file stays a plain link.
//
// Decisions: only relative links (`/user_uploads/...`, what clients insert) are previewed; an
// image elsewhere on the web gets no preview, since this server has no image proxy (Zulip's Camo)
// to fetch it through. The img's attributes are in alphabetical order, as Zulip writes them once
// its thumbnail is in place (BeautifulSoup's serializer sorts them).
import type MarkdownIt from "markdown-it";

type Token = MarkdownIt.Token;

/** What a message shows of an uploaded image (Zulip's MarkdownImageMetadata). */
export interface ImagePreview {
	/** The default thumbnail, null while none is made (Zulip's spinner). */
	url: string | null;
	animated: boolean;
	original_width_px: number;
	original_height_px: number;
	original_content_type: string;
	/** The large still made of a type browsers do not show ("4032x3024.webp"), else null. */
	transcoded_image: string | null;
}

/** Previews by path ID (the URL after /user_uploads/). */
export type ImagePreviews = Map<string, ImagePreview>;

/** Zulip's INLINE_PREVIEW_LIMIT_PER_MESSAGE: a message with more distinct links previews none. */
export const INLINE_PREVIEW_LIMIT = 24;
/** The most uploads one message asks the uploads service about. */
export const MAX_PREVIEW_LOOKUPS = 100;

const SPINNER = "/static/images/loading/loader-black.svg";
const UPLOAD_LINK = /\/user_uploads\/(\d+\/[/\p{L}\p{N}_.%-]+)/gu;

function decoded(path: string): string {
	try {
		return decodeURIComponent(path);
	} catch {
		return path;
	}
}

/** The uploads a message's text may link (Zulip's get_user_upload_previews regular expression), for one lookup. */
export function uploadPathCandidates(content: string): string[] {
	const ids = new Set<string>();
	for (const m of content.matchAll(UPLOAD_LINK)) {
		if (ids.size >= MAX_PREVIEW_LOOKUPS) break;
		ids.add(decoded(m[1]));
	}
	return [...ids];
}

const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The image element of a preview: the thumbnail, or Zulip's spinner until there is one. */
function imageTag(p: ImagePreview): string {
	const dims = `${p.original_width_px}x${p.original_height_px}`;
	if (p.url === null) return `<img class="image-loading-placeholder" src="${SPINNER}" data-original-dimensions="${dims}">`;
	const attrs: Array<[string, string]> = [];
	if (p.animated) attrs.push(["data-animated", "true"]);
	attrs.push(["data-original-content-type", p.original_content_type], ["data-original-dimensions", dims]);
	if (p.transcoded_image !== null) attrs.push(["data-transcoded-image", p.transcoded_image]);
	attrs.push(["src", p.url]);
	return `<img ${attrs.map(([k, v]) => `${k}="${escapeAttr(v)}"`).join(" ")}>`;
}

function previewHtml(href: string, title: string | null, p: ImagePreview): string {
	const titleAttr = title === null ? "" : ` title="${escapeAttr(title)}"`;
	return `<div class="message_inline_image"><a href="${escapeAttr(href)}"${titleAttr}>${imageTag(p)}</a></div>`;
}

/** The preview a link's href names, if it is an uploaded image. */
function previewFor(href: string, previews: ImagePreviews): ImagePreview | undefined {
	return href.startsWith("/user_uploads/") ? previews.get(decoded(href.slice("/user_uploads/".length))) : undefined;
}

/** Zulip's element text of a link: the text before its first child element (null when it starts with one). */
function linkText(children: Token[], open: number): string | null {
	let text = "";
	for (let i = open + 1; i < children.length && children[i].type === "text"; i++) text += children[i].content;
	return text === "" ? null : text;
}

/** A markdown-it core rule placing Zulip's image previews, from `env.imagePreviews`. */
export function imagePreviewPlugin(md: MarkdownIt): void {
	md.core.ruler.push("zulip_image_previews", (state) => {
		const env = state.env as { imagePreviews?: ImagePreviews; inQuote?: boolean };
		const previews = env.imagePreviews;
		// Inside a ```quote block (rendered apart, zulip-markdown.ts) as inside a > quote: no previews.
		if (!previews?.size || env.inQuote) return;
		const tokens = state.tokens;

		// The distinct links outside block quotes; past Zulip's limit, no previews at all.
		const previewable = new Set<string>();
		let quoteDepth = 0;
		for (const t of tokens) {
			if (t.type === "blockquote_open") quoteDepth++;
			if (t.type === "blockquote_close") quoteDepth--;
			if (t.type !== "inline" || quoteDepth > 0) continue;
			for (const c of t.children ?? []) if (c.type === "link_open") previewable.add(c.attrGet("href") ?? "");
		}
		if (previewable.size > INLINE_PREVIEW_LIMIT) return;

		const done = new Set<string>();
		/** Previews to insert after token index `at` (the paragraph's close), in order. */
		const after = new Map<number, string[]>();
		const atEnd: string[] = [];
		const dropped = new Set<number>();
		quoteDepth = 0;
		for (let i = 0; i < tokens.length; i++) {
			const t = tokens[i];
			if (t.type === "blockquote_open") quoteDepth++;
			if (t.type === "blockquote_close") quoteDepth--;
			if (t.type !== "inline" || quoteDepth > 0 || !t.children) continue;
			const inParagraph = tokens[i - 1]?.type === "paragraph_open" && tokens[i + 1]?.type === "paragraph_close";
			let level = 0;
			const children = t.children;
			for (let j = 0; j < children.length; j++) {
				const c = children[j];
				if (c.nesting === -1) level--;
				if (c.type === "link_open") {
					const href = c.attrGet("href") ?? "";
					const preview = previewFor(href, previews);
					if (preview && !done.has(href)) {
						done.add(href);
						const text = linkText(children, j);
						const urlIsText = text === null || text === href;
						const html = previewHtml(href, urlIsText ? null : text, preview);
						// A link directly in a paragraph (or a list item): the preview follows the
						// paragraph; one inside anything else goes to the end of the message, as in Zulip.
						if (inParagraph && level === 0) {
							const list = after.get(i + 1) ?? [];
							list.push(html);
							after.set(i + 1, list);
							// A bare link alone in its paragraph is replaced by its preview.
							const alone = urlIsText && children.length >= 2 && j === 0 && children[children.length - 1].type === "link_close" && children.findIndex((x, k) => k > 0 && x.type === "link_close") === children.length - 1;
							if (alone) dropped.add(i);
						} else atEnd.push(html);
					}
				}
				if (c.nesting === 1) level++;
			}
		}
		if (!after.size && !atEnd.length) return;

		const out: Token[] = [];
		const block = (html: string) => {
			const b = new state.Token("html_block", "", 0);
			b.content = html;
			return b;
		};
		for (let i = 0; i < tokens.length; i++) {
			if (dropped.has(i)) {
				// In a list item the link goes; in a paragraph the whole paragraph.
				if (tokens[i - 1].hidden) tokens[i].children = [];
				else {
					out.pop();
					i++;
					for (const html of after.get(i) ?? []) out.push(block(html));
					continue;
				}
			}
			out.push(tokens[i]);
			for (const html of after.get(i) ?? []) out.push(block(html));
		}
		for (const html of atEnd) out.push(block(html));
		state.tokens = out;
	});
}
