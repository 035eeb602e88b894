// The password reset pages, outside the API, at Zulip's paths: `/accounts/password/reset/` asks
// for an address and sends the link (services/users/password-reset/password-reset.ts decides everything), and
// `/accounts/password/reset/<key>` sets the new password. The link's key is a secret in the URL as
// a sign-up link's is, so the same guard (page-guard.ts) counts wrong keys per address and refuses
// cross-site posts. A POST from an API client (JSON) gets Zulip's JSON envelope back.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "moleculer";
import { call } from "../../shared/actions";
import { renderError } from "../../shared/errors";
import { escapeHtml } from "../../shared/html";
import { postedFields, sendPage, sendPageJson } from "./html-page";
import { admit, sendRefusal, type PageGuard } from "./page-guard";

type Req = IncomingMessage & { body?: unknown; $params?: Record<string, string>; $ctx: Context };

const errorLine = (error?: string) => (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : "");

function addressForm(error?: string, email = ""): string {
	return `<p>Enter the email address of your account; we will send you a link to set a new password.</p>${errorLine(error)}
<form method="post"><label for="email">Email address</label><input id="email" name="email" type="email" required autocomplete="email" value="${escapeHtml(email)}">
<button type="submit">Send the link</button></form>`;
}

function passwordForm(email: string, error?: string): string {
	return `<p>Set a new password for <strong>${escapeHtml(email)}</strong>.</p>${errorLine(error)}
<form method="post"><label for="new_password1">New password</label><input id="new_password1" name="new_password1" type="password" required autocomplete="new-password">
<label for="new_password2">Confirm the new password</label><input id="new_password2" name="new_password2" type="password" required autocomplete="new-password">
<button type="submit">Set the password</button></form>`;
}

/** Answers a failed POST: JSON to API clients; else the form again with the error, or a page for refusals. */
function failed(res: ServerResponse, err: unknown, asJson: boolean, form: (msg: string) => string, title: string): void {
	const r = renderError(err);
	if (asJson) return sendPageJson(res, r.status, r.body, r.headers);
	if (r.status === 400) return sendPage(res, 400, title, form(r.body.msg));
	return sendRefusal(res, err, false);
}

/** `/accounts/password/reset/`: the address form, and sending the link. */
export async function resetRequestPage(req: Req, res: ServerResponse, guard: PageGuard): Promise<void> {
	const admitted = admit(req, res, guard);
	if (!admitted) return;
	const { asJson } = admitted;
	const title = "Reset your password";
	if (req.method !== "POST") return sendPage(res, 200, title, addressForm());
	const email = postedFields(req).email;
	try {
		const sent = await call(req.$ctx, "users.requestPasswordReset", { email });
		if (asJson) return sendPageJson(res, 200, { result: "success", msg: "", email: sent.email });
		return sendPage(res, 200, "Check your email", `<p>If <strong>${escapeHtml(sent.email)}</strong> has an account here, a link to set a new password is on its way to it. The link works for three days.</p>`);
	} catch (err) {
		return failed(res, err, asJson, (msg) => addressForm(msg, typeof email === "string" ? email : ""), title);
	}
}

/** `/accounts/password/reset/<key>`: the new password's form, and setting it. */
export async function resetPasswordPage(req: Req, res: ServerResponse, guard: PageGuard): Promise<void> {
	const key = req.$params?.key ?? "";
	const admitted = admit(req, res, guard);
	if (!admitted) return;
	const { asJson } = admitted;
	let info: { email: string; realm_name: string; realm_url: string };
	try {
		info = await call(req.$ctx, "users.passwordResetInfo", { key });
	} catch (err) {
		const r = renderError(err);
		guard.keyFailed(req, r.status);
		if (asJson) return sendPageJson(res, r.status, r.body, r.headers);
		if (r.status >= 500) return sendRefusal(res, err, false);
		return sendPage(res, r.status, "Link not usable", `<p>${escapeHtml(r.body.msg)}</p><p>Ask for a new one at <a href="../reset/">the password reset page</a>.</p>`);
	}
	const title = `Set your password for ${info.realm_name}`;
	if (req.method !== "POST") return sendPage(res, 200, title, passwordForm(info.email));
	const form = postedFields(req);
	try {
		const user = await call(req.$ctx, "users.resetPassword", { key, new_password1: form.new_password1, new_password2: form.new_password2 });
		if (asJson) return sendPageJson(res, 200, { result: "success", msg: "", ...user });
		return sendPage(res, 200, "Password set", `<p>The password of <strong>${escapeHtml(user.email)}</strong> is set. Log in at <a href="${escapeHtml(info.realm_url)}">${escapeHtml(info.realm_url)}</a> with your email address and the new password.</p>`);
	} catch (err) {
		return failed(res, err, asJson, (msg) => passwordForm(info.email, msg), title);
	}
}
