// Accepting an invitation: the link's state (sent, expired, used, revoked), a claim on it, the
// account (created by the users service, which checks the name, password and address; its unique
// address index also keeps two invitations to one address from making two accounts), then the
// invitation's effects: channels,
// Welcome Bot's greeting, Notification Bot's note to the inviter. The effects after the account
// exists are each logged and skipped on failure (the account cannot be created twice, so a retry
// could not complete them either); the messages carry idempotency keys.
import { call, type Identity } from "../../shared/actions";
import { clock } from "../../shared/clock";
import { badRequest } from "../../shared/errors";
import { accountRegisteredEmail, customWelcome, referrerNote, welcomeContent } from "./messages";
import type { InvitationDoc, MultiuseInviteDoc } from "./models/invitation";
import type { Ctx, InvitesDeps } from "./actions/deps";

export const linkErrors = {
	unknown: () => badRequest("This invitation link is not valid."),
	revoked: () => badRequest("This invitation has been revoked."),
	expired: () => badRequest("This invitation has expired."),
	used: () => badRequest("This invitation has already been used."),
};

/** A link's invitation, if it can still be used. */
export function usable<T extends InvitationDoc | MultiuseInviteDoc>(invite: T | null): T {
	if (!invite) throw linkErrors.unknown();
	if (invite.status === "revoked") throw linkErrors.revoked();
	if (invite.status === "accepted" || invite.status === "accepting") throw linkErrors.used();
	if (invite.expires_at !== null && invite.expires_at <= clock.now()) throw linkErrors.expired();
	return invite;
}

/** How long an acceptance may hold its claim: one whose replica died is taken back after this. */
const CLAIM_SECONDS = 60;

/**
 * Claims an email invitation for one acceptance (one conditional update), so that a link posted
 * twice at once creates one account and the other request is told the link is used.
 */
async function claim(d: InvitesDeps, invite: InvitationDoc): Promise<void> {
	const now = clock.now();
	const claimed = await d.Invitation.findOneAndUpdate(
		{ _id: invite._id, $or: [{ status: "sent" }, { status: "accepting", claimed_at: { $lt: now - CLAIM_SECONDS } }] },
		{ $set: { status: "accepting", claimed_at: now } },
	).lean();
	if (claimed) return;
	const current = await d.Invitation.findById(invite._id, { status: 1 }).lean();
	throw current?.status === "revoked" ? linkErrors.revoked() : linkErrors.used();
}

export async function accept(d: InvitesDeps, ctx: Ctx<any>, invite: InvitationDoc, form: { full_name: string; password: string }) {
	await claim(d, invite);
	const user = await call(ctx, "users.createInvitedUser", {
		email: invite.email,
		full_name: form.full_name,
		password: form.password,
		role: invite.invited_as,
		group_ids: invite.group_ids,
		seat_limit: d.config.seatLimit,
	}).catch(async (err: unknown) => {
		// Refused (a bad name or password, say): the link is usable again.
		await d.Invitation.updateOne({ _id: invite._id, status: "accepting" }, { $set: { status: "sent", claimed_at: null } });
		throw err;
	});
	// This invitation is used; any other to the same address is revoked (as Zulip does).
	await d.Invitation.updateOne({ _id: invite._id }, { $set: { status: "accepted", created_user_id: user.user_id } });
	await d.Invitation.updateMany({ email_key: invite.email_key, status: "sent" }, { $set: { status: "revoked" } });

	const effect = async (what: string, run: () => Promise<unknown>) => {
		try {
			await run();
		} catch (err) {
			d.logger.error({ err, invitation: invite._id }, `invitation accepted, but ${what} failed`);
		}
	};
	await effect("subscribing", () =>
		call(ctx, "channels.subscribeNewUser", { user_id: user.user_id, channel_ids: invite.stream_ids, include_defaults: invite.include_realm_default_subscriptions }),
	);
	await effect("Welcome Bot's messages", async () => {
		const bot = await call(ctx, "users.welcomeBot", {});
		const { realm } = await call(ctx, "users.inviteContext", { emails: [] });
		const texts = [welcomeContent(invite.invited_as), customWelcome(invite.welcome_message_custom_text, realm.welcome_message_custom_text)];
		for (const [i, content] of texts.entries()) {
			if (!content.trim()) continue;
			await asBot(ctx, bot, user.user_id, content, `invite:${user.user_id}:welcome:${i}`);
		}
	});
	// Zulip's account_registered email, sent on sign-up.
	await effect("the new account's email", async () => {
		const { realm } = await call(ctx, "users.inviteContext", { emails: [] });
		await call(ctx, "notifications.sendEmail", accountRegisteredEmail({ ...user, email: invite.email }, invite.invited_as, realm));
	});
	if (invite.notify_referrer_on_join) {
		await effect("the note to the inviter", async () => {
			// Only an inviter still active hears of it (as in Zulip).
			const { users } = await call(ctx, "users.getMany", { user_ids: [invite.referrer_id] });
			if (!users[0]?.is_active) return;
			await call(ctx, "messages.notifyUser", { user_id: invite.referrer_id, content: referrerNote(user), idempotency_key: `invite:${user.user_id}:referrer` });
		});
	}
	await d.announce(ctx, [invite.referrer_id]);
	return user;
}

/** A direct message from a system bot to one user, sent by the messages service as that bot. */
function asBot(ctx: Ctx<any>, bot: Identity, userId: number, content: string, idempotencyKey: string) {
	return call(ctx, "messages.sendScheduled", { type: "private", to: [userId], content, read_by_sender: true, idempotency_key: idempotencyKey }, { meta: { user: bot } });
}
