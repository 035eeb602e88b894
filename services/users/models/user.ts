// Users and bots. Query shapes and the index serving each:
//   by id                         -> _id
//   by API key (authentication)   -> { api_key } unique
//   by email in a realm           -> { realm_id, email_key } unique (email_key: lowercased address)
//   all users of a realm          -> { realm_id, email_key } (prefix; also their names, for
//                                    realm_require_unique_names, ../accounts/accounts.ts)
//   owners of a realm             -> { realm_id, role }
//   a user's bots                 -> { realm_id, bot_owner_id }
//   members awaiting role:fullmembers, past the waiting period
//                                 -> { realm_id, full_member_pending, date_joined }
import { Connection, Schema } from "mongoose";

export interface UserDoc {
	_id: number;
	realm_id: number;
	/** The real address, as entered. */
	delivery_email: string;
	/** delivery_email lowercased: emails are unique and matched without regard to case. */
	email_key: string;
	full_name: string;
	role: number;
	is_bot: boolean;
	/** 1 generic, 2 incoming webhook, 3 outgoing webhook, 4 embedded; null for humans. */
	bot_type: number | null;
	bot_owner_id: number | null;
	is_active: boolean;
	is_billing_admin: boolean;
	api_key: string;
	password_hash: string | null;
	date_joined: Date;
	timezone: string;
	/** "G" gravatar, "U" uploaded. */
	avatar_source: string;
	avatar_version: number;
	/** With an uploaded avatar ("U"): its images' base path (shared/public-images.ts avatarImagePaths). */
	avatar_path?: string | null;
	/** Who may see delivery_email: 1 everyone, 2 members, 3 administrators, 4 nobody, 5 moderators. */
	email_address_visibility: number;
	/** Personal settings that differ from the defaults in ../settings/user-settings.ts. */
	settings: Record<string, unknown>;
	/** Custom profile field values, keyed by field ID, as the API shows them (strings). */
	profile_data: Record<string, string>;
	/** Special permission: may change other users' email addresses (owners only). */
	can_change_user_emails: boolean;
	/** Special permission: may create users through POST /users (administrators only). */
	can_create_users: boolean;
	/**
	 * A member not yet announced in role:fullmembers: the periodic promotion announces the member
	 * once past the waiting period (../groups/full-member-promotion.ts). Absent on users from before it.
	 */
	full_member_pending?: boolean;
	/** A bot's default channels (IDs; absent or null for none) and default_all_public_streams. */
	default_sending_stream_id?: number | null;
	default_events_register_stream_id?: number | null;
	default_all_public_streams?: boolean;
	/** An outgoing webhook or embedded bot's service (Zulip's Service: one per bot). */
	bot_service?: BotService | null;
	/** An incoming webhook or embedded bot's configuration (Zulip's BotConfigData). */
	bot_config?: Record<string, string>;
}

export interface BotService {
	name: string;
	base_url: string;
	/** 1 generic, 2 Slack-compatible. */
	interface: number;
	token: string;
}

const schema = new Schema<UserDoc>(
	{
		_id: Number,
		realm_id: { type: Number, required: true },
		delivery_email: { type: String, required: true },
		email_key: { type: String, required: true },
		full_name: { type: String, required: true },
		role: { type: Number, required: true },
		is_bot: { type: Boolean, default: false },
		bot_type: { type: Number, default: null },
		bot_owner_id: { type: Number, default: null },
		is_active: { type: Boolean, default: true },
		is_billing_admin: { type: Boolean, default: false },
		api_key: { type: String, required: true },
		password_hash: { type: String, default: null },
		date_joined: { type: Date, required: true },
		timezone: { type: String, default: "" },
		avatar_source: { type: String, default: "G" },
		avatar_version: { type: Number, default: 1 },
		avatar_path: { type: String },
		email_address_visibility: { type: Number, default: 1 },
		settings: { type: Schema.Types.Mixed, default: {} },
		profile_data: { type: Schema.Types.Mixed, default: {} },
		can_change_user_emails: { type: Boolean, default: false },
		can_create_users: { type: Boolean, default: false },
		full_member_pending: { type: Boolean },
		default_sending_stream_id: { type: Number },
		default_events_register_stream_id: { type: Number },
		default_all_public_streams: { type: Boolean },
		bot_service: { type: Schema.Types.Mixed },
		bot_config: { type: Schema.Types.Mixed },
	},
	{ versionKey: false, minimize: false },
);
schema.index({ api_key: 1 }, { unique: true });
schema.index({ realm_id: 1, email_key: 1 }, { unique: true });
schema.index({ realm_id: 1, role: 1 });
schema.index({ realm_id: 1, full_member_pending: 1, date_joined: 1 });
// A user's bots (GET /bots, deactivating their owner).
schema.index({ realm_id: 1, bot_owner_id: 1 });
// The organization's users in ID order (GET /users, POST /register).
schema.index({ realm_id: 1, _id: 1 });

export const userModel = (conn: Connection) => conn.model<UserDoc>("User", schema, "users");
