// Invitations by email (Zulip's PreregistrationUser) and reusable invitation links (its
// MultiuseInvite): two collections, two ID sequences, as in Zulip. Query shapes and the index
// serving each:
//   by key (the link)                         -> { key } unique
//   sent ones in ID order (GET, administrators) -> { status, _id }
//   one inviter's sent ones in ID order (GET)   -> { status, referrer_id, _id }
//   sent ones to one address (on acceptance)   -> { email_key, status }
import { Connection, Schema } from "mongoose";

/**
 * sent -> accepted, or sent -> revoked; "expired" is sent with expires_at passed. An email
 * invitation is "accepting" while its account is being created (claimed_at says since when).
 */
export type InvitationStatus = "sent" | "accepting" | "accepted" | "revoked";

/** What both kinds carry: what the new account gets. */
export interface InvitationTerms {
	referrer_id: number;
	invited_as: number;
	stream_ids: number[];
	group_ids: number[];
	include_realm_default_subscriptions: boolean;
	/** null: the organization's custom welcome text; "": none. */
	welcome_message_custom_text: string | null;
	/** UNIX seconds. */
	invited_at: number;
	/** UNIX seconds; null never expires. */
	expires_at: number | null;
	key: string;
	status: InvitationStatus;
}

export interface InvitationDoc extends InvitationTerms {
	_id: number;
	email: string;
	email_key: string;
	notify_referrer_on_join: boolean;
	/** The reusable link this confirmation was asked through (not listed by GET /invites). */
	multiuse_id: number | null;
	created_user_id: number | null;
	/** UNIX seconds: when an acceptance claimed it. */
	claimed_at?: number | null;
}

export type MultiuseInviteDoc = InvitationTerms & { _id: number };

const terms = {
	_id: Number,
	referrer_id: { type: Number, required: true },
	invited_as: { type: Number, required: true },
	stream_ids: { type: [Number], default: [] },
	group_ids: { type: [Number], default: [] },
	include_realm_default_subscriptions: { type: Boolean, default: false },
	welcome_message_custom_text: { type: String, default: null },
	invited_at: { type: Number, required: true },
	expires_at: { type: Number, default: null },
	key: { type: String, required: true },
	status: { type: String, required: true },
};

const invitation = new Schema<InvitationDoc>(
	{
		...terms,
		email: { type: String, required: true },
		email_key: { type: String, required: true },
		notify_referrer_on_join: { type: Boolean, default: true },
		multiuse_id: { type: Number, default: null },
		created_user_id: { type: Number, default: null },
		claimed_at: { type: Number, default: null },
	},
	{ versionKey: false, minimize: false },
);
invitation.index({ key: 1 }, { unique: true });
invitation.index({ status: 1, _id: 1 });
invitation.index({ status: 1, referrer_id: 1, _id: 1 });
invitation.index({ email_key: 1, status: 1 });

const multiuse = new Schema<MultiuseInviteDoc>(terms, { versionKey: false, minimize: false });
multiuse.index({ key: 1 }, { unique: true });
multiuse.index({ status: 1, _id: 1 });
multiuse.index({ status: 1, referrer_id: 1, _id: 1 });

export const invitationModel = (conn: Connection) => conn.model<InvitationDoc>("Invitation", invitation, "invitations");
export const multiuseInviteModel = (conn: Connection) => conn.model<MultiuseInviteDoc>("MultiuseInvite", multiuse, "multiuse_invites");
