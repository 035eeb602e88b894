// The bus contract: every action one service calls on another, with its parameters and result,
// declared once here so a call across the bus is type-checked like a local one.
import type { CallingOptions, Context } from "moleculer";
import type { GroupGraphData } from "./group-settings";
import type { ImagePreview } from "./markdown/image-previews";
import type { Linkifier, RealmEmoji } from "./org-events";
import type { ExportChannel, ExportMessage, ExportReaction, ExportRealm, ExportSubscription, ExportUser } from "./export-rows";
import type { BusBytes } from "./bus-bytes";
import type { EmailRequest } from "./email";
import type { Identity } from "./identity";
import type { DigestChannels, DigestRecipients, DigestSample, DigestTopicRef, DigestTopicStats } from "./digest";
import type { ChannelNotifyFacts, NotificationFacts } from "./notification-facts";
import { adminRequired } from "./errors";
import { isAdmin } from "./roles";

export type { Identity };

export interface Meta {
	user?: Identity;
	/** The client's name, from its User-Agent (services/api/client-name.ts). */
	client?: string;
	/** The file a file endpoint received (services/api/file-upload.ts), stored under `upload_id` by `uploads.writeChunk`. */
	upload?: UploadedFileMeta;
	/** A random ID per HTTP request of a write, the same when the gateway calls again after a lost answer (services/api/lost-answers.ts). */
	request_key?: string;
}

/** A resumable upload as the gateway's tus data store reads it (services/uploads/tus/tus-rules.ts). */
export interface TusUploadState {
	upload_id: string;
	length: number;
	offset: number;
	/** Upload-Metadata's pairs, as JSON. */
	metadata: string;
	/** UNIX milliseconds. */
	created: number;
	chunk_bytes: number;
}

export interface UploadedFileMeta {
	upload_id: string;
	length: number;
	/** As the client named and typed it in its multipart body. */
	file_name: string;
	content_type: string;
}

/** An action's context: its parameters `P`, and the caller in `meta.user`. */
export type Ctx<P = Record<string, never>> = Context<P, Meta>;

/** The authenticated caller of an action the gateway routed (every route but a few requires one). */
export function requireUser(ctx: Context<unknown, Meta>): Identity {
	const user = ctx.meta.user;
	if (!user) throw new Error("action called without an authenticated user");
	return user;
}

/** The caller, who must be an organization administrator. */
export function requireAdmin(ctx: Context<unknown, Meta>): Identity {
	const user = requireUser(ctx);
	if (!isAdmin(user.role)) throw adminRequired();
	return user;
}

/** A user as the API shows it (GET /users, GET /users/me, realm_users in POST /register). */
export interface ApiUser {
	user_id: number;
	email: string;
	delivery_email: string | null;
	full_name: string;
	date_joined: string;
	is_active: boolean;
	is_owner: boolean;
	is_admin: boolean;
	is_guest: boolean;
	is_billing_admin: boolean;
	role: number;
	is_bot: boolean;
	/** Bots only, as bot_owner_id (Zulip's format_user_row). */
	bot_type?: number | null;
	bot_owner_id?: number | null;
	timezone: string;
	avatar_url: string | null;
	avatar_version: number;
	profile_data?: Record<string, { value: string; rendered_value?: string }>;
}

export interface RegisterStateParams {
	/** Event types the client wants state for; null means all. */
	event_types: string[] | null;
	client_gravatar: boolean;
	include_subscribers: boolean | "partial";
	slim_presence: boolean;
	/** How many days of presence (any integer); absent: Zulip's two weeks. */
	presence_history_limit_days?: number;
	user_avatar_url_field_optional: boolean;
	client_capabilities: Record<string, boolean>;
}

/** Each service answers `<service>.registerState` with its own part of the POST /register state. */
export type RegisterState = Record<string, unknown>;

/** Active users a tool names, by delivery email and by a username guessed as Zulip's Jira and TeamCity views do. */
export interface IntegrationPeople {
	by_email: Record<string, { user_id: number; full_name: string }>;
	by_guess: Record<string, { user_id: number; full_name: string }>;
}

/** The user of an incoming webhook's URL: who posts, and (for a bot) its type and owner. */
export interface WebhookSender extends Identity {
	bot_type: number | null;
	bot_owner_id: number | null;
}

/** An active outgoing webhook bot and its service (Zulip's Service: base_url, interface 1 generic or 2 Slack, token). */
export interface OutgoingBot extends Identity {
	bot_owner_id: number | null;
	base_url: string;
	interface: number;
	token: string;
}

/** A request to `/api/v1/external/<integration>`, as the gateway passes it on: nothing parsed but the query. */
export interface WebhookCall {
	integration: string;
	method: string;
	/** Each query parameter's first value, as Django's request.GET reads it. */
	query: Record<string, string>;
	/** Header names in lower case. */
	headers: Record<string, string>;
	/** The body as sent, decoded as UTF-8. */
	body: string;
	path: string;
}

/**
 * What a webhook request is answered: Zulip's success envelope around `data`, or (`raw`) an
 * integration's own answer, as JSON or as text.
 */
export interface WebhookAnswer {
	data?: Record<string, unknown>;
	raw?: { status: number; json?: unknown; text?: string };
}

/** A user as permission checks need them. */
export interface Principal {
	user_id: number;
	role: number;
	is_bot: boolean;
	bot_owner_id: number | null;
}

/** Where a channel message goes: the channels service's answer to channels.sendTarget. */
export interface ChannelTarget {
	channel_id: number;
	name: string;
	topics_policy: string;
	history_public_to_subscribers: boolean;
	/** A private channel (all_public_streams queues do not get its messages). */
	invite_only?: boolean;
	/** A web-public channel (the files its messages link become web-public). */
	is_web_public?: boolean;
	subscribers: number[];
	/** channels.sendTarget: whether the sender has muted the channel. */
	muted_by_sender?: boolean;
	is_archived?: boolean;
}

/** A message as a report quotes it (messages.reportTarget), for a reporter who may read it. */
export interface ReportedMessage {
	message_id: number;
	sender_id: number;
	type: "stream" | "private";
	channel_id: number | null;
	topic: string;
	content: string;
	timestamp: number;
	/** Direct messages: every participant, the sender included, sorted. */
	dm_user_ids: number[];
}

/** What the caller may do with messages in a channel (channels.messagePermissions). */
export interface ChannelPermissions {
	content_access: boolean;
	can_send: boolean;
	can_delete_any: boolean;
	can_delete_own: boolean;
	can_move_within: boolean;
	can_move_out: boolean;
	is_archived: boolean;
	topics_policy: string;
}

export interface TopicPolicies {
	muted_channel_ids: number[];
	topics: Array<{ channel_id: number; topic_key: string; visibility_policy: number }>;
}

type None = Record<string, never>;

/** A message not sent yet: what POST /messages takes (messages.checkSend, messages.sendScheduled). */
export interface WouldBeMessage {
	type: string;
	to: unknown;
	topic?: string;
	content: string;
}

/** messages.checkSend's answer: a would-be message as a scheduled message object shows it. */
export interface CheckedMessage {
	type: "stream" | "private";
	/** A channel ID, or the other participants' IDs (the sender alone when writing to themself). */
	to: number | number[];
	topic: string;
	content: string;
	rendered_content: string;
	/** A direct message to the sender alone. */
	to_self?: boolean;
}

/** What the invites service needs to know about addresses it is asked to invite (users.inviteContext). */
export interface InviteContext {
	/** Accounts of the organization with one of the addresses (matched without regard to case). */
	accounts: Array<{ email: string; is_active: boolean }>;
	/** Active human accounts, the seats in use. */
	active_humans: number;
	realm: { name: string; url: string; welcome_message_custom_text: string };
}

/** An invitation being accepted: the account to create (users.createInvitedUser). */
export interface InvitedUser {
	email: string;
	full_name: string;
	password: string;
	role: number;
	group_ids: number[];
	/** Refuse when this many active humans exist already (0: no limit). */
	seat_limit: number;
}

/** A registered push device (Zulip's PushDeviceToken): kind 1 APNs, 2 FCM. */
export interface PushDevice {
	kind: number;
	token: string;
	/** The iOS app's ID (APNs only), null otherwise. */
	ios_app_id: string | null;
}

/** users.pushDevices: each user's devices (by user ID; none: absent), oldest first, and the organization (for the payloads). */
export interface PushDevices {
	devices: Record<string, PushDevice[]>;
	realm: { id: number; name: string; url: string };
}

/** A device registered (or removed) by a user, for the bouncer (notifications.pushDeviceChanged). */
export interface PushDeviceChange extends PushDevice {
	user_id: number;
	realm_id: number;
	registered: boolean;
}

export interface ActionMap {
	"users.authenticate": { params: { email: string; api_key: string }; result: Identity };
	"users.integrationPeople": { params: { emails: string[]; guesses: string[] }; result: IntegrationPeople };
	"users.authenticateWebhook": { params: { api_key: string; email?: string }; result: WebhookSender };
	"users.confirmEmailChange": { params: { confirmation_key: string }; result: { email: string } };
	/** The password reset pages (services/users/password-reset/password-reset.ts): fields as posted, checked by the action. */
	"users.requestPasswordReset": { params: { email: unknown }; result: { email: string } };
	"users.passwordResetInfo": { params: { key: string }; result: { email: string; realm_name: string; realm_url: string } };
	"users.resetPassword": { params: { key: string; new_password1: unknown; new_password2: unknown }; result: { user_id: number; email: string } };
	/** GET /users/me without max_message_id, through its cache (the users service calls it itself). */
	"users.myProfile": { params: None; result: ApiUser };
	"users.getMany": { params: { user_ids: number[]; client_gravatar?: boolean; include_custom_profile_fields?: boolean }; result: { users: ApiUser[] } };
	"users.registerState": { params: RegisterStateParams; result: RegisterState };
	"users.resolvePrincipals": { params: { principals: Array<number | string> }; result: { users: Principal[] } };
	"users.narrowUsers": { params: { refs: Array<number | string> }; result: { user_ids: number[] } };
	/** A channel was archived: the organization settings naming it become -1 (none). */
	"users.clearChannelSettings": { params: { channel_id: number }; result: { cleared: string[] } };
	"users.groupGraph": { params: None; result: GroupGraphData };
	"users.mentionTargets": { params: { names: string[]; ids: number[] }; result: { users: Array<{ id: number; full_name: string; unique_name: boolean }> } };
	"users.notificationBot": { params: None; result: Identity };
	"users.outgoingBots": { params: None; result: { bots: OutgoingBot[] } };
	"users.settingsOf": { params: { user_ids: number[]; names: string[] }; result: { values: Record<string, Record<string, unknown>> } };
	/** A message's recipients as the notifications service decides on them (services/users/notifications/notification-facts.ts). */
	"users.notificationFacts": { params: { user_ids: number[]; names: string[]; sender_id?: number }; result: NotificationFacts };
	"users.mySettings": { params: { names: string[] }; result: { values: Record<string, unknown> } };
	"users.inviteContext": { params: { emails: string[] }; result: InviteContext };
	/** PATCH /settings as the caller (the notifications service: an unsubscribe link turns login emails off). */
	"users.updateSettings": { params: { enable_login_emails?: boolean; enable_digest_emails?: boolean; enable_offline_email_notifications?: boolean }; result: { ignored_parameters_unsupported?: string[] } };
	/** The weekly digest (services/notifications/digest/): one call each per pass. `inactive_since_ms`/`since_ms` UNIX ms, `since` UNIX seconds. */
	"users.digestRecipients": { params: { inactive_since_ms: number }; result: DigestRecipients };
	"channels.digestChannels": { params: { user_ids: number[]; since_ms: number }; result: DigestChannels };
	"messages.digestTopics": { params: { channel_ids: number[]; since: number }; result: { topics: DigestTopicStats[] } };
	"messages.digestSamples": { params: { topics: DigestTopicRef[] }; result: { samples: DigestSample[] } };
	/** One of Zulip's emails, stored in the outbox once per idempotency key and delivered off the request path. */
	"notifications.sendEmail": { params: EmailRequest; result: { stored: boolean } };
	/** A password login succeeded: the new-login email, if the caller wants it (Zulip's enable_login_emails). */
	/** An email's unsubscribe link opened (the gateway's page): that kind of email is off for its recipient. */
	"notifications.unsubscribe": { params: { type: string; key: string }; result: { what: string } };
	"notifications.pushDeviceChanged": { params: PushDeviceChange; result: None };
	"users.pushDevices": { params: { user_ids: number[] }; result: PushDevices };
	"users.forgetPushDevices": { params: { kind: number; tokens: string[] }; result: { deleted: number } };
	"notifications.loginNotice": { params: { user_agent: string; ip: string; idempotency_key: string }; result: { stored: boolean } };
	"users.checkInviteGroups": { params: { group_ids: number[] }; result: None };
	"users.createInvitedUser": { params: InvitedUser; result: { user_id: number; email: string; full_name: string } };
	"users.welcomeBot": { params: None; result: Identity };
	/** Who muted this user (their new messages arrive read for them). */
	"users.mutersOf": { params: { user_id: number }; result: { user_ids: number[] } };
	/** Of these readers of a message, those whose read receipts the caller sees (ascending); refused when the organization disables read receipts. */
	"users.receiptReaders": { params: { user_ids: number[] }; result: { user_ids: number[] } };
	/** Marks the caller's unread messages from this sender read (muting the sender). */
	"messages.markSenderRead": { params: { sender_id: number }; result: { count: number } };
	"messages.maxMessageId": { params: None; result: { max_message_id: number } };
	"messages.checkSend": { params: WouldBeMessage; result: CheckedMessage };
	/** POST /messages, for the caller in `meta.user` with the client named in `meta.client` (an integration's bot). */
	"messages.send": { params: WouldBeMessage; result: { id: number } };
	"messages.reportTarget": { params: { message_id: number }; result: ReportedMessage };
	"messages.sendNotice": {
		params: { channel_id: number; topic: string; content: string; mark_as_read?: number[]; limit_unread_user_ids?: number[] };
		result: { id: number };
	};
	/** POST /messages/flags, for the caller in `meta.user` (an outgoing webhook bot marks what it processed read). */
	"messages.updateFlags": { params: { messages: number[]; op: "add" | "remove"; flag: string }; result: { messages: number[] } };
	"messages.notifyUser": { params: { user_id: number; content: string; idempotency_key: string }; result: { id: number; repeated: boolean } };
	"messages.notifyUsers": { params: { messages: Array<{ user_id: number; content: string }> }; result: { ids: number[] } };
	"messages.sendScheduled": { params: WouldBeMessage & { read_by_sender: boolean; idempotency_key: string; deliver_by?: number; skip_channel_access?: boolean }; result: { id: number; repeated: boolean } };
	"integrations.incoming": { params: WebhookCall; result: WebhookAnswer };
	"channels.sendTarget": { params: { channel: number | string }; result: ChannelTarget };
	"channels.notificationTarget": { params: { channel_id: number }; result: ChannelTarget };
	"channels.messagePermissions": { params: { channel_id: number }; result: ChannelPermissions };
	"channels.readableChannels": { params: { channel_ids: number[] }; result: { channels: Array<{ channel_id: number; name: string; history_public_to_subscribers: boolean; subscribed: boolean }> } };
	"channels.idsByName": { params: { names: string[] }; result: { ids: Record<string, number> } };
	"channels.names": { params: { channel_ids: number[] }; result: { names: Record<string, string> } };
	"channels.linkTargets": { params: { names: string[] }; result: { channels: Array<{ id: number; name: string }> } };
	"channels.publicChannels": { params: None; result: { channel_ids: number[] } };
	"channels.visibleChannels": { params: { user_id: number; role: number }; result: { channel_ids: number[] } };
	"channels.userRoleChanged": { params: { user_id: number; role: number; channel_ids: number[] }; result: None };
	"channels.userActivityChanged": { params: { user_id: number; is_active: boolean }; result: None };
	"channels.checkInviteChannels": { params: { channel_ids: number[] }; result: None };
	"channels.subscribeNewUser": { params: { user_id: number; channel_ids: number[]; include_defaults: boolean }; result: { channel_ids: number[] } };
	"channels.topicPolicies": { params: None; result: TopicPolicies };
	"channels.firstMessageDeleted": { params: { channel_id: number; message_ids: number[]; first_message_id: number | null; user_ids: number[] }; result: None };
	/** A channel message's recipients as the notifications service decides on them (services/channels/notify-facts.ts). */
	"channels.notificationFacts": { params: { channel_id: number; topic: string; user_ids: number[] }; result: ChannelNotifyFacts };
	"channels.topicPolicyUsers": { params: { channel_id: number; topic: string }; result: { user_ids: number[] } };
	"channels.clearTopicPolicies": { params: { channel_id: number; topic: string; user_ids: number[] }; result: { user_ids: number[] } };
	/** An organization export's reads (shared/export-rows.ts), each a page in ID order or a batch. */
	"users.exportRealm": { params: None; result: ExportRealm };
	"users.exportUsers": { params: { after_id: number; limit: number }; result: { users: ExportUser[] } };
	"channels.exportChannels": { params: None; result: { channels: ExportChannel[]; default_channel_ids: number[] } };
	"channels.exportSubscriptions": { params: { channel_ids: number[] }; result: { subscriptions: ExportSubscription[] } };
	"messages.exportMessages": { params: { channel_ids: number[]; after_id: number; limit: number }; result: { messages: ExportMessage[]; reactions: ExportReaction[] } };
	"messages.exportCount": { params: { channel_ids: number[] }; result: { count: number } };
	/** An organization export's file, for an administrator of its organization. */
	"uploads.openExport": { params: { path_id: string }; result: OpenedFile };
	/** The file endpoint `action` may take a body of `declared_bytes`: an upload starts (services/api/file-upload.ts). */
	"uploads.begin": { params: { action: string; declared_bytes: number; params?: Record<string, unknown> }; result: { upload_id: string; chunk_bytes: number } };
	/** A chunk's bytes: a Buffer, base64 from a node of an earlier version (shared/bus-bytes.ts). */
	"uploads.writeChunk": { params: { upload_id: string; n: number; data: BusBytes }; result: None };
	"uploads.abort": { params: { upload_id: string }; result: None };
	/** A resumable upload (tus, services/api/tus-store.ts): created with Zulip's checks under the gateway's ID, `metadata` the Upload-Metadata pairs as JSON. */
	"uploads.tusCreate": { params: { upload_id: string; length: number; metadata: string }; result: TusUploadState };
	"uploads.tusState": { params: { upload_id: string }; result: TusUploadState };
	/** Bytes at `offset`, which must be the upload's, within one chunk of `chunk_bytes`; answers the new offset. */
	"uploads.tusWrite": { params: { upload_id: string; offset: number; data: BusBytes }; result: { offset: number } };
	/** A complete upload made an ordinary message upload; answers what Zulip's tus endpoint does. */
	"uploads.tusFinish": { params: { upload_id: string }; result: { url: string; filename: string } };
	"uploads.tusRemove": { params: { upload_id: string }; result: None };
	"uploads.open": { params: { path_id: string }; result: OpenedFile };
	"uploads.openTemporary": { params: { token: string; filename: string }; result: OpenedFile };
	"uploads.readChunk": { params: { file_id: string; n: number }; result: { data: BusBytes } };
	/** What a message linking these uploads previews of them: the organization's images among them, by path ID (one call per message). */
	"uploads.previews": { params: { realm_id: number; path_ids: string[] }; result: { previews: Record<string, ImagePreview> } };
	/** A thumbnail (`format`, as `840x560.webp`) of an uploaded image the caller may read. */
	"uploads.openThumbnail": { params: { path_id: string; format: string }; result: OpenedFile };
	/** A message's uploads are now those of `path_ids` (a send, an edit): new ones claimed by Zulip's rules, dropped ones unclaimed. */
	"uploads.claim": { params: AttachmentClaimRequest; result: { has_attachment: boolean } };
	/** These messages are deleted: their uploads lose them. */
	"uploads.unclaim": { params: { message_ids: number[] }; result: None };
	/** These messages moved to a channel of this publicity. */
	"uploads.messagesMoved": { params: { message_ids: number[]; channel_id: number; is_realm_public: boolean; is_web_public: boolean }; result: None };
	/** Of these messages, those the caller may read (for who may read a file they link). */
	/**
	 * Of these messages, those still there as the API shows them with `content_markdown` (no user's
	 * flags), and which each of these users has unread (missed-message emails). With `context_for`
	 * (each user's messages to be told of), also the earlier messages of their channel topics each
	 * user's emails quote (Zulip's get_context_for_message), by user, among `messages`.
	 */
	"messages.unreadForNotices": {
		params: { user_ids: number[]; message_ids: number[]; context_for?: Array<{ user_id: number; message_ids: number[] }> };
		result: { messages: Array<Record<string, unknown>>; unread: Record<string, number[]>; context: Record<string, number[]> };
	};
	"messages.readableAmong": { params: { message_ids: number[] }; result: { message_ids: number[] } };
	/** Of these uploads, those a scheduled message not yet sent links. */
	"scheduling.uploadsInUse": { params: { path_ids: string[] }; result: { path_ids: string[] } };
	/** A custom emoji's or avatar's image at its path under /user_avatars (shared/public-images.ts), for anyone. */
	"uploads.openImage": { params: { path: string }; result: OpenedFile };
	/** Removes an uploaded avatar's images (`avatar_path`: their base path). */
	"uploads.removeAvatarImages": { params: { avatar_path: string }; result: None };
	"uploads.botAvatarImages": { params: None; result: { avatar_path: string } };
	"users.setRealmImage": { params: { kind: "icon" | "logo" | "night_logo"; path: string | null }; result: { url: string; previous_path: string | null } };
	/** Refuses an avatar change where avatar changes are disabled (Zulip's avatar_changes_disabled). */
	"users.checkAvatarChange": { params: None; result: None };
	/** The caller's avatar is now the uploaded one at `avatar_path`: announced; answers its URL and the previous upload's path. */
	"users.setAvatar": { params: { avatar_path: string }; result: { avatar_url: string; previous_path: string | null } };
	/** Where GET /avatar/{user_id_or_email} redirects (Zulip's avatar view). */
	"users.avatarRedirect": { params: { user_id_or_email: string; medium: boolean }; result: { url: string } };
	/** The organization's linkifiers in order (the messages service's rendering cache). */
	"catalog.linkifiers": { params: None; result: { linkifiers: Linkifier[] } };
	/** The organization's custom emoji by ID, as GET /realm/emoji lists them (the messages service's cache, a status's emoji). */
	"catalog.realmEmoji": { params: None; result: { emoji: Record<string, RealmEmoji> } };
	/** Refuses a custom emoji upload before its body is read (name, permission, name in use); answers the name as stored. */
	"catalog.checkEmojiUpload": { params: { emoji_name: string }; result: { emoji_name: string } };
	/** A custom emoji whose images are stored: checked again, then created and announced. */
	"catalog.addEmoji": { params: { emoji_name: string; file_name: string; is_animated: boolean }; result: { id: number } };
	/** The catalog's part of POST /register (the gateway finds it by name, with every other service's). */
	"catalog.registerState": { params: RegisterStateParams; result: RegisterState };
	"channels.autoTopicVisibility": {
		params: { channel_id: number; topic: string; follow: number[]; unmute: number[] };
		result: { changed: Array<{ user_id: number; visibility_policy: number }> };
	};
}

export type ActionName = keyof ActionMap;

/** uploads.claim: the uploads a message links now, as the messages service renders them. */
export interface AttachmentClaimRequest {
	message_id: number;
	/** The message's timestamp, UNIX seconds. */
	date_sent: number;
	/** Who sent the message: they claim only what they may read. */
	sender: Identity;
	/** Its channel; null for a direct message. */
	channel_id: number | null;
	path_ids: string[];
	/** The message is in a public channel / a web-public one. */
	is_realm_public: boolean;
	is_web_public: boolean;
}

/** A stored file the caller may read, as the gateway sends it (services/api/file-download.ts). */
export interface OpenedFile {
	file_id: string;
	length: number;
	chunk_bytes: number;
	content_type: string;
	/** Content-Disposition's value. */
	disposition: string;
	/** When it was stored (UNIX ms). */
	stored: number;
}

/** What can call an action: an action's context, or a service's broker (outside any request). */
export interface Caller {
	call<R, P>(actionName: string, params: P, opts?: CallingOptions): Promise<R>;
}

/**
 * A typed `ctx.call` (or `broker.call`): the name picks the parameter and result types from
 * ActionMap. Every call from one service to another goes through here.
 */
export function call<K extends ActionName>(
	caller: Caller,
	name: K,
	params: ActionMap[K]["params"],
	opts?: CallingOptions,
): Promise<ActionMap[K]["result"]> {
	return caller.call(name, params, opts);
}
