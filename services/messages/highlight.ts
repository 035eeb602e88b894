// Search highlighting: wraps each keyword in text (never inside a tag) in Zulip's highlight span.
import { escapeHtml } from "../../shared/html";
import { escapeRegExp } from "../../shared/regexp";

export function highlight(html: string, keywords: string[]): string {
	const pattern = new RegExp(`(${keywords.map((k) => escapeRegExp(escapeHtml(k))).join("|")})`, "gi");
	return html
		.split(/(<[^>]*>)/)
		.map((part) => (part.startsWith("<") ? part : part.replace(pattern, '<span class="highlight">$1</span>')))
		.join("");
}
