// The password reset pages' actions (the rules live in password-reset.ts). Called by the
// gateway's pages only, without a user: the form's fields arrive as the page received them.
import { p, params } from "../../../shared/params";
import { passwordResetInfo, requestPasswordReset, resetPassword } from "./password-reset";
import type { Ctx, ServiceDeps } from "../deps";

export function passwordResetActions({ db }: ServiceDeps) {
	return {
		requestPasswordReset: {
			params: params({ email: p.string({ optional: true, max: 1000 }) }),
			handler: (ctx: Ctx<{ email?: string }>) => requestPasswordReset(db, ctx.params.email),
		},
		passwordResetInfo: {
			params: params({ key: p.string({ max: 64 }) }),
			handler: (ctx: Ctx<{ key: string }>) => passwordResetInfo(db, ctx.params.key),
		},
		resetPassword: {
			params: params({
				key: p.string({ max: 64 }),
				new_password1: p.string({ optional: true, max: 1000 }),
				new_password2: p.string({ optional: true, max: 1000 }),
			}),
			handler: (ctx: Ctx<{ key: string; new_password1?: string; new_password2?: string }>) =>
				resetPassword(db, ctx.params.key, ctx.params.new_password1, ctx.params.new_password2),
		},
	};
}
