// What the messages service's action groups share: the database handles, the lookups in other
// services, and the organization snapshot.
import type { GroupGraphCache } from "../../../shared/group-settings";
import type { MessagesDb } from "../db";
import type { FetchParams } from "../fetch-rules";
import type { Resolvers } from "../resolvers";
import type { Sent } from "../send-rules";
import type { AutoFollow } from "../auto-follow";
import type { ChannelPermissions, Ctx, Identity } from "../../../shared/actions";
import type { Rendered } from "../../../shared/markdown/render";
import type { MessageDoc } from "../models/message";
import type { NoticeDeps } from "../move-notices";
import type { MaxMessageIds } from "../max-message-ids";

export type { Ctx } from "../../../shared/actions";

export interface ServiceDeps {
	db: MessagesDb;
	resolvers(ctx: Ctx<any>): Resolvers;
	graphs(): GroupGraphCache;
	autoFollow: AutoFollow;
	/** A message the caller may see (received, or in a channel history open to them); else "Invalid message(s)". */
	accessibleMessage(ctx: Ctx<any>, actor: Identity, id: number): Promise<MessageDoc>;
	permissionsIn(ctx: Ctx<any>, channelId: number): Promise<ChannelPermissions>;
	/** Renders content and gives each recipient's mention and alert-word flags. */
	flagsForContent(
		ctx: Ctx<any>,
		actor: Identity,
		content: string,
		recipients: number[],
		channelId: number | null,
		topic: string,
		/** An edit: the message is not new, so mutes do not mark it read. */
		opts?: { edit?: boolean },
	): Promise<{ rendered: Rendered; flagsFor: (userId: number) => string[] }>;
	noticeDeps(ctx: Ctx<any>): NoticeDeps;
	/** Posts as Notification Bot into a channel topic; `isRead` marks some recipients' copies read. */
	postNotice(ctx: Ctx<any>, channelId: number, topic: string, content: string, opts?: { isRead: (userId: number) => boolean }): Promise<number>;
	/**
	 * Message objects for these messages (one call for the users, one for the channel names not
	 * in `channelNames`, those the caller already looked up).
	 */
	views(ctx: Ctx<any>, messages: MessageDoc[], flags: Map<number, string[]>, q: GetParams, channelNames?: ReadonlyMap<number, string>): Promise<Array<Record<string, unknown>>>;
	/**
	 * Broadcasts message.sent for the services that keep derived state; `echo` names the sender's
	 * event queue and the client's local ID (POST /messages' queue_id and local_id).
	 */
	announceSent(ctx: Ctx<any>, sent: Sent, echo?: { sender_queue_id: string; local_id: string }): Promise<void>;
	/** The newest message ID a user has a row for (-1 for none), read from the store. */
	maxMessageIdOf(userId: number): Promise<number>;
	/** The same, kept per replica for GET /users/me (max-message-ids.ts). */
	maxIds: MaxMessageIds;
	/** The server's own URL: links to it are local (upload links a message claims). */
	externalUrl: string;
}

/** GET /messages and GET /messages/{id}: what shapes the message objects. */
export interface GetParams extends FetchParams {
	narrow?: unknown;
	client_gravatar?: boolean;
	apply_markdown?: boolean;
	allow_empty_topic_name?: boolean;
}
