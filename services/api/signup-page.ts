// The sign-up page an invitation links to, outside the API: `/accounts/do_confirm/<key>` (an
// email invitation: name and password) and `/join/<key>/` (a reusable link: the address to
// confirm). GET answers the HTML form; POST takes it form-encoded, or as JSON from API clients,
// who get Zulip's JSON envelope back. The invites service decides everything; this file only
// renders, after the guard's checks (page-guard.ts: wrong keys per address, cross-site posts).
// Every value put into HTML is escaped; every answer carries the pages' headers (html-page.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "moleculer";
import { renderError } from "../../shared/errors";
import { escapeHtml } from "../../shared/html";
import { postedFields as fields, sendPage as page, sendPageJson as json } from "./html-page";
import { admit, type PageGuard } from "./page-guard";

type Req = IncomingMessage & { body?: unknown; $params?: Record<string, string>; $ctx: Context };

interface Info {
	realm_name: string;
	realm_url: string;
	email: string | null;
}


function invitationForm(info: Info, error?: string, name = ""): string {
	const failed = error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : "";
	return `<p>You are invited to join <strong>${escapeHtml(info.realm_name)}</strong> as <strong>${escapeHtml(info.email ?? "")}</strong>.</p>${failed}
<form method="post"><label for="full_name">Full name</label><input id="full_name" name="full_name" required autocomplete="name" value="${escapeHtml(name)}">
<label for="password">Password</label><input id="password" name="password" type="password" required autocomplete="new-password">
<button type="submit">Create account</button></form>`;
}

function linkForm(info: Info, error?: string, email = ""): string {
	const failed = error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : "";
	return `<p>You are invited to join <strong>${escapeHtml(info.realm_name)}</strong>. Enter your email address; we will send you a link to finish.</p>${failed}
<form method="post"><label for="email">Email address</label><input id="email" name="email" type="email" required autocomplete="email" value="${escapeHtml(email)}">
<button type="submit">Continue</button></form>`;
}

/** One request to a sign-up link; `kind` says which of the two. */
export async function signupPage(req: Req, res: ServerResponse, kind: "invitation" | "link", guard: PageGuard): Promise<void> {
	const key = req.$params?.key ?? "";
	const admitted = admit(req, res, guard);
	if (!admitted) return;
	const { asJson } = admitted;
	let info: Info;
	try {
		info = await req.$ctx.call<Info, Record<string, string>>("invites.signupInfo", { key, kind });
	} catch (err) {
		const r = renderError(err);
		guard.keyFailed(req, r.status);
		if (asJson) return json(res, r.status, r.body);
		return page(res, r.status, "Invitation not usable", `<p>${escapeHtml(r.body.msg)}</p><p>Ask the person who invited you for a new invitation.</p>`);
	}
	if (req.method !== "POST") {
		return page(res, 200, `Join ${info.realm_name}`, kind === "link" ? linkForm(info) : invitationForm(info));
	}
	const form = fields(req);
	try {
		if (kind === "link") {
			const { email } = await req.$ctx.call<{ email: string }, Record<string, unknown>>("invites.requestInvitation", { key, email: form.email });
			if (asJson) return json(res, 200, { result: "success", msg: "", email });
			return page(res, 200, "Check your email", `<p>We sent a link to <strong>${escapeHtml(email)}</strong>. Open it to finish joining ${escapeHtml(info.realm_name)}.</p>`);
		}
		const user = await req.$ctx.call<{ user_id: number; email: string }, Record<string, unknown>>("invites.accept", { key, full_name: form.full_name, password: form.password });
		if (asJson) return json(res, 200, { result: "success", msg: "", ...user });
		const login = `<p>Your account <strong>${escapeHtml(user.email)}</strong> in ${escapeHtml(info.realm_name)} is ready. Log in at <a href="${escapeHtml(info.realm_url)}">${escapeHtml(info.realm_url)}</a> with your email address and password.</p>`;
		return page(res, 200, "Account created", login);
	} catch (err) {
		const r = renderError(err);
		if (asJson) return json(res, r.status, r.body);
		if (r.status >= 500) return page(res, r.status, "Something went wrong", `<p>${escapeHtml(r.body.msg)}</p>`);
		const text = (v: unknown) => (typeof v === "string" ? v : "");
		return page(res, r.status, `Join ${info.realm_name}`, kind === "link" ? linkForm(info, r.body.msg, text(form.email)) : invitationForm(info, r.body.msg, text(form.full_name)));
	}
}
