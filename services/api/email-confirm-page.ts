// The page a confirmation email links to (not part of the API): confirms an email change and
// answers with a small HTML page either way.
import type { ServerResponse } from "node:http";
import type { Context } from "moleculer";
import { call, type Meta } from "../../shared/actions";
import { renderError } from "../../shared/errors";
import { escapeHtml } from "../../shared/html";

export async function confirmEmailPage(ctx: Context<unknown, Meta>, key: string, res: ServerResponse): Promise<void> {
	const page = (status: number, title: string, text: string) => {
		const html = `<!doctype html><meta charset="utf-8"><title>${escapeHtml(title)}</title><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>\n`;
		res.writeHead(status, { "Content-Type": "text/html; charset=utf-8", "Content-Length": Buffer.byteLength(html) });
		res.end(html);
	};
	try {
		const { email } = await call(ctx, "users.confirmEmailChange", { confirmation_key: key });
		page(200, "Email address changed", `Your account's email address is now ${email}.`);
	} catch (err) {
		const r = renderError(err);
		page(r.status, "Email address not changed", r.body.msg);
	}
}
