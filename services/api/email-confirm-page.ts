// The page a confirmation email links to (not part of the API): confirms an email change and
// answers with a small HTML page either way. Its key is a secret in the URL as a sign-up link's
// is, so the same guard counts wrong keys per address (page-guard.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "moleculer";
import { call, type Meta } from "../../shared/actions";
import { renderError } from "../../shared/errors";
import { escapeHtml } from "../../shared/html";
import { sendPage } from "./html-page";
import { admit, type PageGuard } from "./page-guard";

export async function confirmEmailPage(req: IncomingMessage & { $ctx: Context<unknown, Meta> }, key: string, res: ServerResponse, guard: PageGuard): Promise<void> {
	const page = (status: number, title: string, text: string) => sendPage(res, status, title, `<p>${escapeHtml(text)}</p>`);
	if (!admit(req, res, guard)) return;
	try {
		const { email } = await call(req.$ctx, "users.confirmEmailChange", { confirmation_key: key });
		page(200, "Email address changed", `Your account's email address is now ${email}.`);
	} catch (err) {
		const r = renderError(err);
		guard.keyFailed(req, r.status);
		page(r.status, "Email address not changed", r.body.msg);
	}
}
