// POST /invites, GET /invites, DELETE /invites/{invite_id}, POST /invites/{invite_id}/resend,
// POST /invites/multiuse and DELETE /invites/multiuse/{invite_id}: Zulip's checks in Zulip's
// order (views/invite.py, actions/invites.py); everything is checked before anything is written.
import { call, requireUser, type Identity } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { randomToken } from "../../../shared/passwords";
import { isAdmin, ROLES, Role } from "../../../shared/roles";
import { classify, parseInvitees } from "../addresses";
import { checkDailyLimit, takeFromDailyLimit } from "../daily-limit";
import { invitationFailed, seatsExhausted } from "../errors";
import { invitationEmail } from "../messages";
import type { InvitationDoc, InvitationTerms } from "../models/invitation";
import { checkInviteAs, checkWelcomeText, requireControl, requireInvitePermission, requireMemberOrAdmin } from "../permissions";
import { invitationView, inviteLink, isOpen, multiuseLink, multiuseView } from "../views";
import type { Ctx, InvitesDeps } from "./deps";

/** Zulip's MAX_REALM_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH. */
const WELCOME_TEXT_MAX = 8000;
/** The longest validity an invitation may ask for: 100 years (ours; Zulip sets none). */
const MAX_EXPIRY_MINUTES = 100 * 366 * 24 * 60;

const termsParams = {
	invite_expires_in_minutes: { ...p.int({ optional: true, min: 1, max: MAX_EXPIRY_MINUTES }), nullable: true },
	invite_as: p.oneOf(ROLES, { optional: true }),
	group_ids: p.intList({ optional: true }),
	include_realm_default_subscriptions: p.bool({ optional: true }),
	welcome_message_custom_text: { ...p.string({ optional: true, max: WELCOME_TEXT_MAX }), nullable: true },
};

interface TermsParams {
	invite_expires_in_minutes?: number | null;
	invite_as?: number;
	stream_ids?: number[];
	group_ids?: number[];
	include_realm_default_subscriptions?: boolean;
	welcome_message_custom_text?: string | null;
}

type InviteParams = TermsParams & { invitee_emails: string; stream_ids: number[]; notify_referrer_on_join?: boolean };

const noSuchInvitation = () => badRequest("No such invitation");

export function inviteActions(d: InvitesDeps) {
	/** The checks both kinds share, after who may invite: role, channels, groups, welcome text. */
	async function checkTerms(ctx: Ctx<any>, actor: Identity, q: TermsParams, beforeChannels: () => void = () => undefined) {
		const invitedAs = q.invite_as ?? Role.MEMBER;
		checkInviteAs(actor, invitedAs);
		beforeChannels();
		const streamIds = [...new Set(q.stream_ids ?? [])];
		const groupIds = [...new Set(q.group_ids ?? [])];
		await call(ctx, "channels.checkInviteChannels", { channel_ids: streamIds });
		await call(ctx, "users.checkInviteGroups", { group_ids: groupIds });
		checkWelcomeText(actor, q.welcome_message_custom_text);
		const now = clock.now();
		const minutes = q.invite_expires_in_minutes === undefined ? d.config.invitationLinkValidityMinutes : q.invite_expires_in_minutes;
		return {
			referrer_id: actor.user_id,
			invited_as: invitedAs,
			stream_ids: streamIds,
			group_ids: groupIds,
			include_realm_default_subscriptions: q.include_realm_default_subscriptions ?? false,
			welcome_message_custom_text: q.welcome_message_custom_text ?? null,
			invited_at: now,
			expires_at: minutes === null ? null : now + minutes * 60,
			status: "sent",
		} satisfies Omit<InvitationTerms, "key">;
	}

	/** The invitation by ID, if the caller may manage it (Zulip's access_invite_by_id). */
	async function accessInvitation(actor: Identity, id: number): Promise<InvitationDoc> {
		requireMemberOrAdmin(actor);
		const invite = await d.Invitation.findById(id).lean();
		if (!invite || invite.status !== "sent" || invite.multiuse_id !== null) throw noSuchInvitation();
		requireControl(actor, invite);
		return invite;
	}

	return {
		create: {
			params: params({
				invitee_emails: p.string(),
				stream_ids: p.intList(),
				notify_referrer_on_join: p.bool({ optional: true }),
				...termsParams,
			}),
			async handler(ctx: Ctx<InviteParams>) {
				const actor = requireUser(ctx);
				const q = ctx.params;
				requireInvitePermission(await d.graphs.get(), actor, "can_invite_users_group");
				let emails: string[] = [];
				const terms = await checkTerms(ctx, actor, q, () => {
					emails = parseInvitees(q.invitee_emails);
					if (!emails.length) throw badRequest("You must specify at least one email address.");
				});
				// do_invite_users: the day's limit and the seats for every address, then the addresses.
				await checkDailyLimit(d.Quota, d.config.invitesDailyLimit, emails.length);
				const context = await call(ctx, "users.inviteContext", { emails });
				if (d.config.seatLimit > 0 && context.active_humans + emails.length > d.config.seatLimit) throw seatsExhausted(emails.length);
				const { valid, errors, skipped } = classify(emails, context.accounts);
				if (errors.length) throw invitationFailed("Some emails did not validate, so we didn't send any invitations.", [...errors, ...skipped]);
				if (skipped.length === emails.length) throw invitationFailed("We weren't able to invite anyone.", skipped);
				await takeFromDailyLimit(d.Quota, d.config.invitesDailyLimit, valid.length);

				const first = await d.nextId("invitation", valid.length);
				const docs: InvitationDoc[] = valid.map((email, i) => ({
					...terms,
					_id: first + i,
					email,
					email_key: email.toLowerCase(),
					notify_referrer_on_join: q.notify_referrer_on_join ?? true,
					key: randomToken(24),
					multiuse_id: null,
					created_user_id: null,
				}));
				await d.Invitation.insertMany(docs);
				const referrer = { full_name: actor.full_name, email: actor.delivery_email };
				for (const doc of docs) {
					const link = inviteLink(context.realm.url, doc.key);
					await call(ctx, "notifications.sendEmail", invitationEmail({ to: doc.email, realm: context.realm, referrer, link, expiresAt: doc.expires_at, key: `invitation:${doc._id}` }));
				}
				await d.announce(ctx, [actor.user_id]);
				if (skipped.length) {
					throw invitationFailed(
						"Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
						skipped,
						{ sent: true },
					);
				}
				return {};
			},
		},

		list: {
			params: params({}),
			async handler(ctx: Ctx) {
				const actor = requireUser(ctx);
				requireMemberOrAdmin(actor);
				const filter: { status: "sent"; referrer_id?: number } = isAdmin(actor.role) ? { status: "sent" } : { status: "sent", referrer_id: actor.user_id };
				const [invitations, links, context] = await Promise.all([
					d.Invitation.find(filter).sort({ _id: 1 }).lean(),
					d.MultiuseInvite.find(filter).sort({ _id: 1 }).lean(),
					call(ctx, "users.inviteContext", { emails: [] }),
				]);
				const now = clock.now();
				return {
					invites: [
						...invitations.filter((i) => i.multiuse_id === null && isOpen(i, now)).map(invitationView),
						...links.filter((i) => isOpen(i, now)).map((i) => multiuseView(i, context.realm.url)),
					],
				};
			},
		},

		revoke: {
			params: params({ invite_id: p.int() }),
			async handler(ctx: Ctx<{ invite_id: number }>) {
				const actor = requireUser(ctx);
				const invite = await accessInvitation(actor, ctx.params.invite_id);
				const done = await d.Invitation.updateOne({ _id: invite._id, status: "sent" }, { $set: { status: "revoked" } });
				if (!done.modifiedCount) throw noSuchInvitation();
				await d.announce(ctx, [invite.referrer_id]);
				return {};
			},
		},

		resend: {
			params: params({ invite_id: p.int() }),
			async handler(ctx: Ctx<{ invite_id: number }>) {
				const actor = requireUser(ctx);
				const invite = await accessInvitation(actor, ctx.params.invite_id);
				if (!isOpen(invite, clock.now())) throw badRequest("The invitation has expired.");
				const context = await call(ctx, "users.inviteContext", { emails: [] });
				// Every email sent counts against the day's limit (Zulip's do_send_user_invite_email).
				await takeFromDailyLimit(d.Quota, d.config.invitesDailyLimit, 1);
				const { users } = await call(ctx, "users.getMany", { user_ids: [invite.referrer_id] });
				const referrer = users[0] ? { full_name: users[0].full_name, email: users[0].delivery_email ?? users[0].email } : { full_name: actor.full_name, email: actor.delivery_email };
				const link = inviteLink(context.realm.url, invite.key);
				// Each resend is an email of its own (the key's random part; a retried call keeps it).
				await call(ctx, "notifications.sendEmail", invitationEmail({ to: invite.email, realm: context.realm, referrer, link, expiresAt: invite.expires_at, key: `invitation:${invite._id}:${randomToken(16)}` }));
				await d.Invitation.updateOne({ _id: invite._id, status: "sent" }, { $set: { invited_at: clock.now() } });
				await d.announce(ctx, [invite.referrer_id]);
				return {};
			},
		},

		createMultiuse: {
			params: params({ stream_ids: p.intList({ optional: true }), ...termsParams }),
			async handler(ctx: Ctx<TermsParams>) {
				const actor = requireUser(ctx);
				requireInvitePermission(await d.graphs.get(), actor, "create_multiuse_invite_group");
				const terms = await checkTerms(ctx, actor, ctx.params);
				const context = await call(ctx, "users.inviteContext", { emails: [] });
				const key = randomToken(24);
				await d.MultiuseInvite.create({ ...terms, _id: await d.nextId("multiuse_invite"), key });
				await d.announce(ctx, [actor.user_id]);
				return { invite_link: multiuseLink(context.realm.url, key) };
			},
		},

		revokeMultiuse: {
			params: params({ invite_id: p.int() }),
			async handler(ctx: Ctx<{ invite_id: number }>) {
				const actor = requireUser(ctx);
				requireMemberOrAdmin(actor);
				const invite = await d.MultiuseInvite.findById(ctx.params.invite_id).lean();
				if (!invite) throw noSuchInvitation();
				requireControl(actor, invite);
				if (invite.status === "revoked") throw badRequest("Invitation has already been revoked");
				const done = await d.MultiuseInvite.updateOne({ _id: invite._id, status: "sent" }, { $set: { status: "revoked" } });
				if (!done.modifiedCount) throw badRequest("Invitation has already been revoked");
				await d.announce(ctx, [invite.referrer_id]);
				return {};
			},
		},
	};
}
