// Invitations as GET /invites shows them, and the links they are opened through.
import type { InvitationDoc, MultiuseInviteDoc } from "./models/invitation";

export const inviteLink = (realmUrl: string, key: string) => `${realmUrl}/accounts/do_confirm/${key}`;
export const multiuseLink = (realmUrl: string, key: string) => `${realmUrl}/join/${key}/`;

export function invitationView(i: InvitationDoc): Record<string, unknown> {
	return {
		email: i.email,
		invited_by_user_id: i.referrer_id,
		invited: i.invited_at,
		expiry_date: i.expires_at,
		id: i._id,
		invited_as: i.invited_as,
		is_multiuse: false,
		notify_referrer_on_join: i.notify_referrer_on_join,
	};
}

export function multiuseView(i: MultiuseInviteDoc, realmUrl: string): Record<string, unknown> {
	return {
		invited_by_user_id: i.referrer_id,
		invited: i.invited_at,
		expiry_date: i.expires_at,
		id: i._id,
		link_url: multiuseLink(realmUrl, i.key),
		invited_as: i.invited_as,
		is_multiuse: true,
	};
}

/** Sent, and not expired at `now` (UNIX seconds). */
export const isOpen = (i: { status: string; expires_at: number | null }, now: number) => i.status === "sent" && (i.expires_at === null || i.expires_at > now);
