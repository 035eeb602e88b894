// The notifications service's email actions, for other services: notifications.sendEmail (one of
// Zulip's emails, by template) and notifications.loginNotice (the gateway, after a password login).
import type { Context } from "moleculer";
import { requireUser, type Meta } from "../../../shared/actions";
import type { EmailRequest } from "../../../shared/email";
import { p, params } from "../../../shared/params";
import { ACCOUNT_EMAILS, renderAccountEmail, UNSUBSCRIBABLE } from "../templates/account-emails";
import { mail, type MailerDeps } from "../outbox/mailer";
import { noticeLogin, type LoginDetails } from "../login-notice/login-notice";

const keyParam = p.string({ min: 1, max: 200 });

export function emailActions(deps: MailerDeps) {
	return {
		sendEmail: {
			visibility: "public",
			params: params({
				template: p.oneOf(Object.keys(ACCOUNT_EMAILS)),
				context: { type: "object" },
				to: p.string({ min: 3, max: 254 }),
				idempotency_key: keyParam,
				user_id: p.int({ optional: true, min: 1 }),
			}),
			async handler(ctx: Context<EmailRequest, Meta>) {
				const q = ctx.params;
				const type = UNSUBSCRIBABLE[q.template];
				return mail(deps, {
					key: q.idempotency_key,
					kind: q.template,
					to: q.to,
					user_id: q.user_id ?? null,
					realm_url: q.context.realm_url,
					unsubscribe: type ? { type, as: null } : undefined,
					render: (footer) => renderAccountEmail(q.template, q.context, footer),
				});
			},
		},

		loginNotice: {
			visibility: "public",
			params: params({ user_agent: p.string({ empty: true, max: 1000 }), ip: p.string({ empty: true, max: 100 }), idempotency_key: keyParam }),
			async handler(ctx: Context<LoginDetails, Meta>) {
				return noticeLogin(deps, ctx, requireUser(ctx), ctx.params);
			},
		},
	};
}
