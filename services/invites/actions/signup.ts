// The sign-up page's actions (the gateway serves the page, services/api/signup-page.ts): what a
// link invites to, accepting an email invitation, and asking for one through a reusable link.
import { call } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { randomToken } from "../../../shared/passwords";
import { classify, isValidEmail } from "../addresses";
import { accept, usable } from "../accept";
import { confirmationEmail } from "../messages";
import { inviteLink } from "../views";
import type { Ctx, InvitesDeps } from "./deps";

const keyParam = p.string({ min: 1, max: 64 });

export function signupActions(d: InvitesDeps) {
	const invitation = async (key: string) => usable(await d.Invitation.findOne({ key }).lean());
	const link = async (key: string) => usable(await d.MultiuseInvite.findOne({ key }).lean());

	return {
		/** What the page shows before the form: the organization, and the invited address. */
		signupInfo: {
			params: params({ key: keyParam, kind: p.oneOf(["invitation", "link"]) }),
			async handler(ctx: Ctx<{ key: string; kind: string }>) {
				const invite = ctx.params.kind === "link" ? await link(ctx.params.key) : await invitation(ctx.params.key);
				const { realm } = await call(ctx, "users.inviteContext", { emails: [] });
				return { realm_name: realm.name, realm_url: realm.url, email: "email" in invite ? invite.email : null };
			},
		},

		/** The form of an email invitation: creates the account. */
		accept: {
			params: params({ key: keyParam, full_name: p.string(), password: p.string() }),
			async handler(ctx: Ctx<{ key: string; full_name: string; password: string }>) {
				const invite = await invitation(ctx.params.key);
				const user = await accept(d, ctx, invite, ctx.params);
				return { user_id: user.user_id, email: user.email };
			},
		},

		/**
		 * The form of a reusable link: the address given gets an invitation with the link's terms
		 * (from the link's creator, who is not notified), so that the address is confirmed before
		 * an account is made, as Zulip does.
		 */
		requestInvitation: {
			params: params({ key: keyParam, email: p.string() }),
			async handler(ctx: Ctx<{ key: string; email: string }>) {
				const source = await link(ctx.params.key);
				const email = ctx.params.email.trim();
				if (!isValidEmail(email)) throw badRequest("Please enter a valid email address.");
				const context = await call(ctx, "users.inviteContext", { emails: [email] });
				const { skipped } = classify([email], context.accounts);
				if (skipped.length) throw badRequest(skipped[0][1]);
				const key = randomToken(24);
				const now = clock.now();
				const id = await d.nextId("invitation");
				await d.Invitation.create({
					_id: id,
					referrer_id: source.referrer_id,
					invited_as: source.invited_as,
					stream_ids: source.stream_ids,
					group_ids: source.group_ids,
					include_realm_default_subscriptions: source.include_realm_default_subscriptions,
					welcome_message_custom_text: source.welcome_message_custom_text,
					invited_at: now,
					expires_at: source.expires_at,
					key,
					status: "sent",
					email,
					email_key: email.toLowerCase(),
					notify_referrer_on_join: false,
					multiuse_id: source._id,
					created_user_id: null,
				});
				const activate = inviteLink(context.realm.url, key);
				await call(ctx, "notifications.sendEmail", confirmationEmail({ to: email, realm: context.realm, link: activate, expiresAt: source.expires_at, key: `confirm-registration:${id}` }));
				return { email };
			},
		},
	};
}
