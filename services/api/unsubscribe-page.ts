// The page an email's unsubscribe link opens (not part of the API), at Zulip's path
// `/accounts/unsubscribe/<type>/<key>`: it turns that kind of email off for the recipient, without
// logging in (services/notifications/unsubscribe/), and says so; Zulip's pages say the same. Its
// key is a secret in the URL, so the page guard counts wrong keys per address (page-guard.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "moleculer";
import { call, type Meta } from "../../shared/actions";
import { renderError } from "../../shared/errors";
import { escapeHtml } from "../../shared/html";
import { sendPage } from "./html-page";
import { admit, type PageGuard } from "./page-guard";

type Req = IncomingMessage & { $params?: Record<string, string>; $ctx: Context<unknown, Meta> };

export async function unsubscribePage(req: Req, res: ServerResponse, guard: PageGuard): Promise<void> {
	if (!admit(req, res, guard)) return;
	try {
		const { what } = await call(req.$ctx, "notifications.unsubscribe", { type: req.$params?.type ?? "", key: req.$params?.key ?? "" });
		sendPage(res, 200, "Email settings updated", `<p>You've successfully unsubscribed from ${escapeHtml(what)}.</p><p>You can undo this change or review your preferences in your personal notification settings.</p>`);
	} catch (err) {
		const r = renderError(err);
		guard.keyFailed(req, r.status);
		if (r.status >= 500) throw err;
		sendPage(res, r.status, "Unknown email unsubscribe request", "<p>Hi there! It looks like you tried to unsubscribe from something, but we don't recognize the URL.</p>");
	}
}
