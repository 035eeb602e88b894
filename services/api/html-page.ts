// The HTML pages the gateway serves outside the API (sign-up, email confirmation) and the headers
// every one of them carries. The pages have no scripts; their one inline stylesheet is allowed by
// its hash, so the Content-Security-Policy allows nothing else: no script, no frame, no image, no
// form posting anywhere but back to the page's own origin.
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { escapeHtml } from "../../shared/html";

const STYLE =
	"body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.4rem;box-sizing:border-box}button{margin-top:1rem;padding:.5rem 1rem}.error{color:#b00}";

const styleHash = createHash("sha256").update(STYLE).digest("base64");

/**
 * Sent with every answer of these pages, HTML or JSON.
 * - Referrer-Policy same-origin: the page's URL holds its key, so no other site may see it in a
 *   Referer. Not no-referrer: browsers then send `Origin: null` on the form's POST, which the
 *   cross-site check (csrf.ts) must refuse.
 * - frame-ancestors 'none' and X-Frame-Options DENY (for browsers without CSP 2): no site can
 *   frame the form to trick a click.
 */
export const PAGE_HEADERS: Record<string, string> = {
	"Content-Security-Policy": `default-src 'none'; style-src 'sha256-${styleHash}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
	"X-Frame-Options": "DENY",
	"X-Content-Type-Options": "nosniff",
	"Referrer-Policy": "same-origin",
	"Cache-Control": "no-store",
};

/** Answers an HTML page: `title` as its heading, `body` already-escaped HTML. */
export function sendPage(res: ServerResponse, status: number, title: string, body: string, headers: Record<string, string> = {}): void {
	if (res.headersSent) return;
	const html = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>\n`;
	res.writeHead(status, { ...PAGE_HEADERS, ...headers, "Content-Type": "text/html; charset=utf-8", "Content-Length": Buffer.byteLength(html) });
	res.end(html);
}

/** Answers JSON (Zulip's envelope, for API clients) with the same headers. */
export function sendPageJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	if (res.headersSent) return;
	const text = JSON.stringify(body);
	res.writeHead(status, { ...PAGE_HEADERS, ...headers, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
	res.end(text);
}

/** Whether a page's POST came from an API client (JSON in or wanted back), who gets Zulip's JSON envelope. */
export const wantsJson = (req: IncomingMessage) => /application\/json/i.test(req.headers["content-type"] ?? "") || /^application\/json/i.test(req.headers.accept ?? "");

/** A page's posted fields, as the body parser left them (each action refuses what is not a string). */
export function postedFields(req: IncomingMessage & { body?: unknown }): Record<string, unknown> {
	const b = req.body;
	return b && typeof b === "object" && !Array.isArray(b) && !Buffer.isBuffer(b) ? (b as Record<string, unknown>) : {};
}
