// The messages service: sending, storing and fetching messages, with every recipient's flags.
// This file wires the service (its database, the lookups in other services, rendering, message
// objects); the actions are in actions/ and the rules in the modules beside this file.
import type { Connection } from "mongoose";
import type { Context, ServiceSchema } from "moleculer";
import type { Config } from "../../shared/config";
import { call, requireUser, type ApiUser, type Ctx, type Identity } from "../../shared/actions";
import { connectServiceDb, counters, ensureIndexes } from "../../shared/db";
import { GroupGraphCache } from "../../shared/group-settings";
import type { LinkifiersChanged, MutesChanged, RealmEmojiChanged } from "../../shared/org-events";
import { linkifiersChanged, loadedLinkifiers } from "./linkifier-cache";
import { loadedRealmEmoji, realmEmojiChanged } from "./realm-emoji-cache";
import type { MessagesDb } from "./db";
import { messageModel, type MessageDoc } from "./models/message";
import { userMessageModel } from "./models/user-message";
import { recipientModel } from "./models/recipient";
import { backfillSearchWords } from "./search-backfill";
import { recipientsOf, storeMessage, type Sent } from "./send-rules";
import type { NoticeDeps } from "./move-notices";
import { AutoFollow } from "./auto-follow";
import { groupMentions, mentionFlags } from "./mention-flags";
import { renderContent } from "../../shared/markdown/render";
import { channelLinks, imagePreviews, mentionTargets } from "./render-targets";
import { deletedPayload, deleteMessages } from "./edit-rules";
import { announceDeletion } from "./announce-deletion";
import { alertedUsers } from "./alert-words";
import { alertWordsModel } from "./models/alert-words";
import type { Resolvers } from "./resolvers";
import { apiFlags, messageView } from "./message-view";
import { accessibleMessage as findAccessible } from "./access";
import { claimUploads } from "./attachment-claims";
import { reactionModel } from "./models/reaction";
import { submessageModel } from "./models/submessage";
import { submessagesOf } from "./submessages";
import { submessageActions } from "./actions/submessages";
import { draftModel } from "./models/draft";
import { savedSnippetModel } from "./models/saved-snippet";
import { reactionsOf } from "./reaction-rules";
import type { GetParams, ServiceDeps } from "./actions/deps";
import { flagActions } from "./actions/flags";
import { reactionActions } from "./actions/reactions";
import { draftActions } from "./actions/drafts";
import { savedSnippetActions } from "./actions/saved-snippets";
import { editActions } from "./actions/edit";
import { deleteTopicActions } from "./actions/delete-topic";
import { MaxMessageIds } from "./max-message-ids";
import { clock } from "../../shared/clock";
import { sendActions } from "./actions/send";
import { fetchActions } from "./actions/fetch";
import { typingActions } from "./actions/typing";
import { renderActions } from "./actions/render";
import { moderationSupportActions } from "./actions/moderation-support";
import { botMessageActions } from "./actions/bot-messages";
import { alertWordActions } from "./actions/alert-words";
import { registerActions } from "./actions/register";
import { readReceiptActions } from "./actions/read-receipts";
import { realmExportActions } from "./actions/realm-export";
import { attachmentSupportActions } from "./actions/attachment-support";
import { notificationSupportActions } from "./actions/notification-support";
import { digestMessageActions } from "./actions/digests";
import { MuterCache } from "./muter-cache";

export function messagesService(config: Config & { mongoUrl: string }): ServiceSchema {
	let conn: Connection;
	let stopping = false;
	let backfill: Promise<unknown> | undefined;
	const db = { realmId: 1 } as MessagesDb;
	// The organization snapshot (empty-topic name) comes with the group graph.
	let graphs: GroupGraphCache;

	/** The newest message ID a user has a row for (-1 for none): one entry of the {user_id, message_id} index. */
	async function maxMessageIdOf(userId: number): Promise<number> {
		const last = await db.UserMessage.findOne({ user_id: userId }, { message_id: 1 }).sort({ message_id: -1 }).lean();
		return last?.message_id ?? -1;
	}
	const maxIds = new MaxMessageIds(maxMessageIdOf, () => clock.nowMs());

	const emptyTopicName = async () => (await graphs.get()).emptyTopicDisplayName;

	function resolvers(ctx: Ctx<any>): Resolvers {
		return {
			channelIds: async (names) => new Map(Object.entries((await call(ctx, "channels.idsByName", { names })).ids)),
			userIds: async (refs) => (await call(ctx, "users.narrowUsers", { refs })).user_ids,
			readable: async (ids) =>
				(await call(ctx, "channels.readableChannels", { channel_ids: ids })).channels,
			emptyTopicName,
			topicPolicies: async () =>
				call(ctx, "channels.topicPolicies", {}),
			publicChannelIds: async () => (await call(ctx, "channels.publicChannels", {})).channel_ids,
		};
	}

	/** A message the caller may see (received, or in a channel history open to them). */
	const accessibleMessage = (ctx: Ctx<any>, actor: Identity, id: number): Promise<MessageDoc> => findAccessible(db, actor.user_id, id, resolvers(ctx).readable);

	const permissionsIn = (ctx: Ctx<any>, channelId: number) =>
		call(ctx, "channels.messagePermissions", { channel_id: channelId });

	const muters = new MuterCache();

	/**
	 * Renders content and gives each recipient's mention flags: what sending and editing share.
	 * A new message (not an edit) is also read for the users who muted its sender.
	 */
	async function flagsForContent(ctx: Ctx<any>, actor: Identity, content: string, recipients: number[], channelId: number | null, topic: string, opts?: { edit?: boolean }) {
		const graph = await graphs.get();
		const [targets, links, previews] = await Promise.all([mentionTargets(ctx, graph, content), channelLinks(ctx, content), imagePreviews(ctx, actor.realm_id, content)]);
		// Custom emoji render from the cache, loaded once per process.
		await loadedRealmEmoji(ctx);
		const rendered = renderContent(content, targets, links, await loadedLinkifiers(ctx), previews);
		const noMuters: ReadonlySet<number> = new Set();
		const [participants, alerted, muting] = await Promise.all([
			channelId !== null && rendered.mentions.topicWildcard
				? db.Message.distinct("sender_id", { channel_id: channelId, topic_key: topic.toLowerCase() }).then((ids) => new Set<number>(ids))
				: Promise.resolve(new Set<number>()),
			alertedUsers(db, recipients, actor.user_id, content),
			opts?.edit || !recipients.length ? noMuters : muters.of(actor.user_id, async () => (await call(ctx, "users.mutersOf", { user_id: actor.user_id })).user_ids),
		]);
		const mentionsFor = mentionFlags(rendered.mentions, graph, recipients, actor.user_id, participants);
		const flagsFor = (userId: number) => [...(muting.has(userId) && userId !== actor.user_id ? ["read"] : []), ...mentionsFor(userId), ...(alerted.has(userId) ? ["has_alert_word"] : [])];
		return { rendered, flagsFor };
	}

	/** Message objects for these messages: one call for the users, one for the channel names not known. */
	async function views(ctx: Ctx<any>, messages: MessageDoc[], flags: Map<number, string[]>, q: GetParams, known: ReadonlyMap<number, string> = new Map()) {
		// topic_links need the organization's linkifiers (loaded once per process).
		const [reactions, submessages] = await Promise.all([reactionsOf(db, messages.filter((m) => !m.no_reactions).map((m) => m._id)), submessagesOf(db, messages), loadedLinkifiers(ctx)]);
		const reactors = [...reactions.values()].flatMap((list) => list.map((r) => r.user_id));
		const userIds = [...new Set([...messages.flatMap((m) => [m.sender_id, ...m.dm_user_ids]), ...reactors])];
		const channelIds = [...new Set(messages.map((m) => m.channel_id).filter((c): c is number => c !== null && !known.has(c)))];
		const [users, names, graph] = await Promise.all([
			userIds.length ? call(ctx, "users.getMany", { user_ids: userIds, client_gravatar: q.client_gravatar ?? true, include_custom_profile_fields: false }) : { users: [] as ApiUser[] },
			channelIds.length ? call(ctx, "channels.names", { channel_ids: channelIds }) : { names: {} },
			graphs.get(),
		]);
		const context = {
			users: new Map(users.users.map((u) => [u.user_id, u])),
			channelNames: new Map([...known, ...Object.entries(names.names).map(([k, v]) => [Number(k), v] as const)]),
			applyMarkdown: q.apply_markdown ?? true,
			allowEmptyTopicName: q.allow_empty_topic_name ?? false,
			emptyTopicName: graph.emptyTopicDisplayName,
			editHistoryVisibility: graph.messaging.edit_history_visibility,
			reactions,
			submessages,
		};
		return messages.map((m) => messageView(m, flags.get(m._id) ?? ["read", "historical"], context));
	}

	/** Zulip's mentions_user_ids: users mentioned by name or ID, and the members of mentioned groups (no wildcards, no silent mentions). */
	async function mentionedUserIds(mentions: Sent["mentions"]): Promise<number[]> {
		if (!mentions) return [];
		const out = new Set(mentions.userIds);
		if (mentions.groupIds.size) {
			const graph = await graphs.get();
			for (const g of mentions.groupIds) for (const u of graph.members(g)) out.add(u);
		}
		return [...out];
	}

	/**
	 * Tells the other services about a message: those that keep derived state (first message,
	 * recent activity), and the events service, which gets the message as the API shows it and
	 * each recipient's flags when it runs (one view for all recipients), and what the sender's
	 * own queue echoes back (`echo`).
	 */
	async function announceSent(ctx: Ctx<any>, sent: Sent, echo?: { sender_queue_id: string; local_id: string }) {
		const m = sent.message;
		// The uploads it links are claimed before anyone hears of it, as Zulip's do_send_messages.
		if (sent.sender) {
			const publicity = async () => ({ is_realm_public: sent.publicChannel ?? false, is_web_public: sent.webPublicChannel ?? false });
			m.has_attachment = await claimUploads(ctx, db, config.externalUrl, { message: m, sender: sent.sender, html: m.rendered_content, stored: m.has_attachment, publicity });
		}
		// The integrations service snapshots the message for the outgoing webhook bots it triggers; the
		// notifications service reads the recipients' flags.
		const listening = ctx.broker.registry.getServiceList({ onlyAvailable: true }).some((s: { name: string }) => ["events", "integrations", "notifications"].includes(s.name));
		let event: Record<string, unknown> | undefined;
		if (listening) {
			const [message] = await views(ctx, [m], new Map([[m._id, []]]), { apply_markdown: true, client_gravatar: false, allow_empty_topic_name: false } as GetParams);
			delete message.flags;
			event = { message, content: m.content, flags: Object.fromEntries([...sent.flags].map(([u, f]) => [u, apiFlags(f)])) };
		}
		const mentioned_user_ids = await mentionedUserIds(sent.mentions);
		// Missed-message emails name the group a user was mentioned through.
		const mentioned_user_groups = sent.mentions?.groupIds.size ? groupMentions(sent.mentions, await graphs.get()) : undefined;
		await ctx.broadcast("message.sent", {
			message_id: m._id,
			channel_id: m.channel_id ?? undefined,
			topic: m.topic,
			timestamp: m.timestamp,
			sender_id: m.sender_id,
			sender_is_bot: sent.sender?.is_bot ?? false,
			user_ids: sent.userIds,
			mentioned_user_ids,
			mentioned_user_groups,
			public_channel: sent.publicChannel ?? false,
			event,
			...echo,
		});
	}

	/** What move notices need: channel facts as the mover sees them, and posting as Notification Bot. */
	function noticeDeps(ctx: Ctx<any>): NoticeDeps {
		return {
			db,
			externalUrl: config.externalUrl,
			channels: async (ids) => new Map((await resolvers(ctx).readable(ids)).map((c) => [c.channel_id, { name: c.name, historyOpen: c.history_public_to_subscribers }])),
			async remove(m) {
				const deleted = await deletedPayload(db, m, requireUser(ctx).user_id, await emptyTopicName());
				await deleteMessages(db, [m._id]);
				await announceDeletion(ctx, db, deleted);
			},
			// Only resolve notices are unread for some alone; they are the ones a quick undo removes.
			post: (channelId, topic, content, unreadFor) =>
				postNotice(ctx, channelId, topic, content, unreadFor && { isRead: (u) => !unreadFor.has(u), resolveNotice: true }),
		};
	}

	/**
	 * Posts as Notification Bot into a channel topic, the caller having checked both. `isRead`
	 * marks recipients' copies read; the bot's own copy is read, but for a resolve notice only
	 * by `isRead`.
	 */
	async function postNotice(ctx: Ctx<any>, channelId: number, topic: string, content: string, opts?: { isRead: (userId: number) => boolean; resolveNotice?: boolean }) {
		const bot = await call(ctx, "users.notificationBot", {});
		const channel = await call(ctx, "channels.notificationTarget", { channel_id: channelId });
		const target = { channel, topic };
		const { rendered, flagsFor } = await flagsForContent(ctx, bot, content, recipientsOf(bot, target), channelId, topic);
		const readByBot = !opts?.resolveNotice;
		// storeMessage marks the bot's own copy read when readByBot.
		const isRead = opts && ((u: number) => !(readByBot && u === bot.user_id) && opts.isRead(u));
		const flags = isRead ? (u: number) => [...(isRead(u) ? ["read"] : []), ...flagsFor(u)] : flagsFor;
		const sent = await storeMessage(db, bot, target, content, rendered, flags, readByBot, "Internal", !readByBot);
		await announceSent(ctx, sent);
		return sent.message._id;
	}

	const autoFollow = new AutoFollow();
	const deps: ServiceDeps = { db, resolvers, graphs: () => graphs, autoFollow, accessibleMessage, permissionsIn, flagsForContent, noticeDeps, postNotice, views, announceSent, maxMessageIdOf, maxIds, externalUrl: config.externalUrl };

	return {
		name: "messages",
		actions: {
			...flagActions(deps),
			...reactionActions(deps),
			...submessageActions(deps),
			...draftActions(deps),
			...savedSnippetActions(deps),
			...sendActions(deps),
			...fetchActions(deps),
			...editActions(deps),
			...deleteTopicActions(deps),
			...typingActions(deps),
			...renderActions(deps),
			...moderationSupportActions(deps),
			...botMessageActions(deps),
			...alertWordActions(deps),
			...registerActions(deps),
			...readReceiptActions(deps, muters),
			...realmExportActions(deps),
			...attachmentSupportActions(deps),
			...notificationSupportActions(deps),
			...digestMessageActions(deps),
		},

		events: {
			// What the per-user newest message IDs (maxIds) follow.
			"message.sent"(ctx: Context<{ message_id: number; user_ids: number[] }>) {
				maxIds.sent(ctx.params.message_id, ctx.params.user_ids);
			},
			"messages.deleted"(ctx: Context<{ user_ids: number[] }>) {
				maxIds.forget(ctx.params.user_ids);
			},
			"messages.moved"() {
				maxIds.forget();
			},
			"users.groupsChanged"() {
				graphs?.invalidate();
			},
			"users.changed"() {
				graphs?.invalidate();
			},
			"users.mutesChanged"(ctx: Context<MutesChanged>) {
				muters.changed(ctx.params.muted_user_id);
			},
			"catalog.linkifiersChanged"(ctx: Context<LinkifiersChanged>) {
				linkifiersChanged(ctx.params.realm_linkifiers);
			},
			"catalog.realmEmojiChanged"(ctx: Context<RealmEmojiChanged>) {
				realmEmojiChanged(ctx.params.realm_emoji);
			},
			/** Turning drafts synchronization off deletes the drafts kept on the server. */
			async "users.settingsChanged"(ctx: Context<{ user_id: number; changes: Record<string, unknown> }>) {
				if (ctx.params.changes.enable_drafts_synchronization === false) await db.Draft.deleteMany({ user_id: ctx.params.user_id });
				autoFollow.forget(ctx.params.user_id);
			},
		},

		async started(this: any) {
			conn = await connectServiceDb(config.mongoUrl, config.dbPrefix, "messages");
			Object.assign(db, {
				Message: messageModel(conn),
				UserMessage: userMessageModel(conn),
				Recipient: recipientModel(conn),
				AlertWords: alertWordsModel(conn),
				Reaction: reactionModel(conn),
				Submessage: submessageModel(conn),
				Draft: draftModel(conn),
				SavedSnippet: savedSnippetModel(conn),
				nextId: counters(conn),
			});
			graphs = new GroupGraphCache(() => call(this.broker, "users.groupGraph", {}));
			await ensureIndexes(conn);
			// In the background: the service answers meanwhile (search-backfill.ts).
			backfill = backfillSearchWords(db, () => stopping)
				.then((n) => n && this.logger.info(`Keyword search: ${n} older messages indexed`))
				.catch((err: Error) => this.logger.warn(`Keyword search: indexing older messages failed: ${err.message}`));
		},

		async stopped() {
			stopping = true;
			await backfill;
			await conn?.close();
		},
	} as ServiceSchema;
}
