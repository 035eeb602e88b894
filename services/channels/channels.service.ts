// The channels service: channels, subscriptions, channel permissions and the access model.
// Handlers are thin; the rules live in the modules beside this file.
import type { Connection } from "mongoose";
import type { Context, ServiceSchema } from "moleculer";
import type { Config } from "../../shared/config";
import { call, requireUser, type ChannelTarget, type Identity, type Meta, type RegisterStateParams } from "../../shared/actions";
import { connectServiceDb, counters, ensureIndexes } from "../../shared/db";
import { badRequest } from "../../shared/errors";
import { GroupGraphCache, type GroupGraph } from "../../shared/group-settings";
import { p, params } from "../../shared/params";
import { isAdmin, isGuest } from "../../shared/roles";
import type { ChannelsDb } from "./db";
import { channelModel, CHANNEL_GROUP_SETTINGS, TOPICS_POLICIES, type ChannelDoc } from "./models/channel";
import { subscriptionKey, subscriptionModel, type SubscriptionDoc } from "./models/subscription";
import { hasContentAccess, hasMetadataAccess, isChannelAdmin } from "./access";
import { channelView, subscriptionView } from "./channel-view";
import { subscribe, type SubscribeParams } from "./subscribe";
import { unsubscribe, channelDoesNotExist } from "./unsubscribe";
import { updateStream, type StreamChanges } from "./stream-update";
import { updateProperties, type PropertyChange } from "./subscription-properties";
import { createFolder, folderView, updateFolder } from "./folders";
import { setVisibility, topicForClient, topicFromClient } from "./topics";
import { channelFolderModel } from "./models/channel-folder";
import { userTopicKey, userTopicModel, VisibilityPolicy } from "./models/user-topic";
import { adminRequired, apiError } from "../../shared/errors";
import type {
	ChannelAccessChanged,
	ChannelsArchived,
	ChannelsCreated,
	DefaultChannelsChanged,
	SubscriptionPropertiesChanged,
	SubscriptionsChanged,
	UserActivityChanged,
	UserRoleChanged,
	UserTopicChanged,
} from "../../shared/org-events";
import { activityPeers, channelAccessChanged, channelArchived, channelUpdated, subscriptionsAdded, subscriptionsRemoved, visibleChannelIds } from "./channel-events";
import { inviteChannelActions } from "./actions/invites";

type Ctx<P = Record<string, never>> = Context<P, Meta>;

const topicChange = (graph: GroupGraph, change: UserTopicChanged): UserTopicChanged => ({ ...change, empty_topic_display_name: graph.emptyTopicDisplayName });

/** What the messages service needs to deliver a message into a channel. */
const sendTargetOf = (channel: ChannelDoc, subscribers: number[]): ChannelTarget => ({
	channel_id: channel._id,
	name: channel.name,
	topics_policy: channel.topics_policy,
	history_public_to_subscribers: channel.history_public_to_subscribers,
	invite_only: channel.invite_only,
	is_archived: channel.is_archived,
	subscribers,
});

const groupSettingParams = Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((k) => [k, p.json({ optional: true })]));

const principalsParam = p.either([p.intList(), p.stringList()], { optional: true });

/** Channel settings that both creating (POST /users/me/subscriptions) and editing accept. */
const channelSettingParams = {
	is_web_public: p.bool({ optional: true }),
	is_default_stream: p.bool({ optional: true }),
	history_public_to_subscribers: p.bool({ optional: true }),
	message_retention_days: p.either([p.string(), p.int()], { optional: true }),
	topics_policy: p.oneOf(TOPICS_POLICIES, { optional: true }),
	...groupSettingParams,
};

interface StreamFilters {
	include_public?: boolean;
	include_web_public?: boolean;
	include_subscribed?: boolean;
	exclude_archived?: boolean;
	include_all?: boolean;
	include_default?: boolean;
	include_owner_subscribed?: boolean;
	include_can_access_content?: boolean;
	include_all_active?: boolean;
}

export function channelsService(config: Config & { mongoUrl: string }): ServiceSchema {
	let conn: Connection;
	const db = { realmId: 1, webPublicStreams: config.webPublicStreams } as ChannelsDb;

	const me = (ctx: Ctx<any>): Identity => requireUser(ctx);

	const invalidChannel = () => badRequest("Invalid channel ID");

	async function activeSubs(userId: number): Promise<Set<number>> {
		return new Set((await db.Subscription.find({ user_id: userId, active: true }, { channel_id: 1 }).lean()).map((s) => s.channel_id));
	}

	/** The caller, the group graph, and a channel the caller may know about (else "Invalid channel ID"). */
	/** The default channels now, for the `default_streams` event to the active non-guest users (Zulip's audience). */
	async function announceDefaults(ctx: Ctx<any>) {
		const graph = await db.graphs.get();
		const defaults = await db.Channel.find({ realm_id: db.realmId, is_default: true, is_archived: false }).sort({ name_key: 1 }).lean();
		const user_ids = [...graph.members(graph.system("role:members"))];
		await ctx.broadcast("channels.defaultsChanged", { default_streams: defaults.map((c) => channelView(graph, c)), user_ids } satisfies DefaultChannelsChanged);
	}

	async function visibleChannel(ctx: Ctx<any>, channelId: number): Promise<{ actor: Identity; graph: GroupGraph; channel: ChannelDoc; subscribed: boolean }> {
		const actor = me(ctx);
		const graph = await db.graphs.get();
		const channel = await db.Channel.findOne({ _id: channelId, realm_id: db.realmId }).lean();
		if (!channel) throw invalidChannel();
		const subscribed = !!(await db.Subscription.exists({ _id: subscriptionKey(actor.user_id, channelId), active: true }));
		if (!hasMetadataAccess(graph, actor, channel, subscribed)) throw invalidChannel();
		return { actor, graph, channel, subscribed };
	}

	/** Active subscribers of each channel (deactivated users left out). */
	async function subscribersOf(graph: GroupGraph, channelIds: number[]): Promise<Map<number, number[]>> {
		const out = new Map<number, number[]>(channelIds.map((id) => [id, []]));
		const subs = await db.Subscription.find({ channel_id: { $in: channelIds }, active: true }, { user_id: 1, channel_id: 1 }).lean();
		for (const s of subs) if (graph.isActive(s.user_id)) out.get(s.channel_id)!.push(s.user_id);
		for (const list of out.values()) list.sort((a, b) => a - b);
		return out;
	}

	async function allChannels(): Promise<ChannelDoc[]> {
		return db.Channel.find({ realm_id: db.realmId }).sort({ name_key: 1 }).lean();
	}

	return {
		name: "channels",
		actions: {
			...inviteChannelActions(db),

			subscribe: {
				params: params({
					subscriptions: p.list(p.object({ name: p.string(), description: p.string({ optional: true }) }, {}), { min: 1 }),
					principals: principalsParam,
					authorization_errors_fatal: p.bool({ optional: true }),
					announce: p.bool({ optional: true }),
					invite_only: p.bool({ optional: true }),
					...channelSettingParams,
				}),
				async handler(ctx: Ctx<SubscribeParams & { principals?: Array<number | string> }>) {
					const actor = me(ctx);
					const graph = await db.graphs.get();
					const principals = ctx.params.principals?.length ? (await call(ctx, "users.resolvePrincipals", { principals: ctx.params.principals })).users : [];
					const { created, added, ...result } = await subscribe(db, graph, actor, principals, ctx.params);
					const events = await subscriptionsAdded(db, graph, added, created);
					if (created.length) await ctx.broadcast("channels.created", { channel_ids: created, streams: events.created } satisfies ChannelsCreated);
					if (created.length && ctx.params.is_default_stream) await announceDefaults(ctx);
					await ctx.broadcast("channels.subscriptionsChanged", {
						...events.changed,
						user_ids: principals.length ? principals.map((u) => u.user_id) : [actor.user_id],
					} satisfies SubscriptionsChanged);
					return result;
				},
			},

			unsubscribe: {
				params: params({ subscriptions: p.stringList({ min: 1 }), principals: principalsParam }),
				async handler(ctx: Ctx<{ subscriptions: string[]; principals?: Array<number | string> }>) {
					const actor = me(ctx);
					const graph = await db.graphs.get();
					const principals = ctx.params.principals?.length ? (await call(ctx, "users.resolvePrincipals", { principals: ctx.params.principals })).users : null;
					const { removed, not_removed, userIds, pairs } = await unsubscribe(db, graph, actor, ctx.params.subscriptions, principals);
					if (removed.length) {
						await ctx.broadcast("channels.subscriptionsChanged", { ...(await subscriptionsRemoved(db, graph, pairs)), user_ids: userIds } satisfies SubscriptionsChanged);
					}
					return { removed, not_removed };
				},
			},

			listSubscriptions: {
				params: params({ include_subscribers: p.bool({ optional: true }) }),
				async handler(ctx: Ctx<{ include_subscribers?: boolean }>) {
					const actor = me(ctx);
					const graph = await db.graphs.get();
					const subs = await db.Subscription.find({ user_id: actor.user_id, active: true }).lean();
					const channels = new Map((await db.Channel.find({ _id: { $in: subs.map((s) => s.channel_id) } }).lean()).map((c) => [c._id, c]));
					const subscribers = ctx.params.include_subscribers ? await subscribersOf(graph, [...channels.keys()]) : undefined;
					const list = subs
						.filter((s) => channels.has(s.channel_id))
						.map((s) => subscriptionView(graph, channels.get(s.channel_id)!, s, subscribers?.get(s.channel_id)))
						.sort((a, b) => String(a.name).toLowerCase().localeCompare(String(b.name).toLowerCase()));
					return { subscriptions: list };
				},
			},

			list: {
				params: params({
					include_public: p.bool({ optional: true }),
					include_web_public: p.bool({ optional: true }),
					include_subscribed: p.bool({ optional: true }),
					exclude_archived: p.bool({ optional: true }),
					include_all: p.bool({ optional: true }),
					include_default: p.bool({ optional: true }),
					include_owner_subscribed: p.bool({ optional: true }),
					include_can_access_content: p.bool({ optional: true }),
					include_all_active: p.bool({ optional: true }),
				}),
				async handler(ctx: Ctx<StreamFilters>) {
					const actor = me(ctx);
					const q = ctx.params;
					if (q.include_all_active && !isAdmin(actor.role)) throw badRequest("User not authorized for this query");
					const graph = await db.graphs.get();
					const [channels, subs] = await Promise.all([allChannels(), activeSubs(actor.user_id)]);
					let ownerSubs = new Set<number>();
					if (q.include_owner_subscribed && actor.is_bot) {
						const [bot] = (await call(ctx, "users.resolvePrincipals", { principals: [actor.user_id] })).users;
						if (bot?.bot_owner_id) ownerSubs = await activeSubs(bot.bot_owner_id);
					}
					const includeAll = q.include_all || q.include_all_active;
					const picked = channels.filter((c) => {
						if ((q.exclude_archived ?? true) && c.is_archived) return false;
						const subscribed = subs.has(c._id);
						if (!hasMetadataAccess(graph, actor, c, subscribed) && !(q.include_owner_subscribed && ownerSubs.has(c._id))) return false;
						return (
							!!includeAll ||
							((q.include_public ?? true) && !c.invite_only && !isGuest(actor.role)) ||
							(!!q.include_web_public && c.is_web_public) ||
							((q.include_subscribed ?? true) && subscribed) ||
							(!!q.include_default && c.is_default) ||
							(!!q.include_can_access_content && hasContentAccess(graph, actor, c, subscribed)) ||
							(!!q.include_owner_subscribed && ownerSubs.has(c._id))
						);
					});
					return { streams: picked.map((c) => channelView(graph, c)) };
				},
			},

			get: {
				params: params({ stream_id: p.int() }),
				async handler(ctx: Ctx<{ stream_id: number }>) {
					const { graph, channel } = await visibleChannel(ctx, ctx.params.stream_id);
					return { stream: channelView(graph, channel) };
				},
			},

			getId: {
				params: params({ stream: p.string() }),
				async handler(ctx: Ctx<{ stream: string }>) {
					const actor = me(ctx);
					const graph = await db.graphs.get();
					const channel = await db.Channel.findOne({ realm_id: db.realmId, name_key: ctx.params.stream.trim().toLowerCase() }).lean();
					const subscribed = !!channel && !!(await db.Subscription.exists({ _id: `${actor.user_id}:${channel._id}`, active: true }));
					if (!channel || !hasMetadataAccess(graph, actor, channel, subscribed)) throw badRequest(`Invalid channel name '${ctx.params.stream}'`);
					return { stream_id: channel._id };
				},
			},

			members: {
				params: params({ stream_id: p.int() }),
				async handler(ctx: Ctx<{ stream_id: number }>) {
					const { graph, channel } = await visibleChannel(ctx, ctx.params.stream_id);
					return { subscribers: (await subscribersOf(graph, [channel._id])).get(channel._id) };
				},
			},

			archive: {
				params: params({ stream_id: p.int() }),
				async handler(ctx: Ctx<{ stream_id: number }>) {
					const { actor, graph, channel } = await visibleChannel(ctx, ctx.params.stream_id);
					if (!isChannelAdmin(graph, actor, channel)) throw badRequest("You do not have permission to administer this channel.");
					if (channel.is_archived) throw badRequest("Channel is already archived");
					await db.Channel.updateOne({ _id: channel._id }, { $set: { is_archived: true, is_default: false } });
					// An archived channel stops being a default one; Zulip says so before the channel's own events.
					if (channel.is_default) await announceDefaults(ctx);
					await ctx.broadcast("channels.archived", { channel_ids: [channel._id], streams: [await channelArchived(db, graph, channel)] } satisfies ChannelsArchived);
					return {};
				},
			},

			update: {
				params: params({
					stream_id: p.int(),
					description: p.string({ optional: true }),
					new_name: p.string({ optional: true }),
					is_private: p.bool({ optional: true }),
					is_archived: p.bool({ optional: true }),
					folder_id: { ...p.int({ optional: true }), nullable: true },
					...channelSettingParams,
				}),
				async handler(ctx: Ctx<StreamChanges & { stream_id: number }>) {
					const { stream_id, ...changes } = ctx.params;
					const { actor, graph, channel, subscribed } = await visibleChannel(ctx, stream_id);
					const set = await updateStream(db, graph, actor, channel, subscribed, changes);
					if (Object.keys(set).length) await ctx.broadcast("channels.updated", await channelUpdated(db, graph, channel, set));
					if (set.is_default !== undefined && set.is_default !== channel.is_default) await announceDefaults(ctx);
					return {};
				},
			},

			updateProperties: {
				params: params({
					subscription_data: p.list(p.object({ stream_id: p.int(), property: p.string(), value: { type: "any", nullable: true } }), { min: 1 }),
				}),
				async handler(ctx: Ctx<{ subscription_data: PropertyChange[] }>) {
					const actor = me(ctx);
					const changes = await updateProperties(db, actor.user_id, ctx.params.subscription_data);
					await ctx.broadcast("channels.subscriptionPropertiesChanged", { user_id: actor.user_id, changes } satisfies SubscriptionPropertiesChanged);
					return { subscription_data: ctx.params.subscription_data };
				},
			},

			/** For the users service, before a role change: the channels the user may know about. */
			visibleChannels: {
				visibility: "public",
				params: params({ user_id: p.int(), role: p.int() }),
				async handler(ctx: Ctx<{ user_id: number; role: number }>) {
					return { channel_ids: await visibleChannelIds(db, await db.graphs.get(), ctx.params) };
				},
			},

			// The users service calls the two below after a change (a call, not an event: one replica
			// announces it, before the request that made the change is answered, so changes made one
			// after another are announced in their order).
			/** After a role change: the channels the user gains or loses sight of (stream create and delete, peer_add). */
			userRoleChanged: {
				visibility: "public",
				params: params({ user_id: p.int(), role: p.int(), channel_ids: p.intList() }),
				async handler(ctx: Ctx<UserRoleChanged>) {
					db.graphs.invalidate();
					const { user_id, role, channel_ids } = ctx.params;
					const change = await channelAccessChanged(db, await db.graphs.get(), { user_id, role }, channel_ids);
					if (change.created.length || change.deleted.length) await ctx.broadcast("channels.accessChanged", change satisfies ChannelAccessChanged);
					return {};
				},
			},

			/** After a deactivation or reactivation: peer_remove or peer_add for the user's channels. */
			userActivityChanged: {
				visibility: "public",
				params: params({ user_id: p.int(), is_active: p.bool() }),
				async handler(ctx: Ctx<UserActivityChanged>) {
					db.graphs.invalidate();
					const change = await activityPeers(db, await db.graphs.get(), ctx.params.user_id, ctx.params.is_active);
					if (change.peers?.length) await ctx.broadcast("channels.subscriptionsChanged", change satisfies SubscriptionsChanged);
					return {};
				},
			},

			listDefaults: {
				params: params({}),
				async handler(ctx: Ctx) {
					const actor = me(ctx);
					const graph = await db.graphs.get();
					if (isGuest(actor.role)) return { default_streams: [] };
					const defaults = await db.Channel.find({ realm_id: db.realmId, is_default: true, is_archived: false }).sort({ name_key: 1 }).lean();
					return { default_streams: defaults.map((c) => channelView(graph, c)) };
				},
			},

			addDefault: {
				params: params({ stream_id: p.int() }),
				async handler(ctx: Ctx<{ stream_id: number }>) {
					if (!isAdmin(me(ctx).role)) throw adminRequired();
					const { channel } = await visibleChannel(ctx, ctx.params.stream_id);
					if (channel.invite_only) throw badRequest("Private channels cannot be made default.");
					if (channel.is_archived) throw invalidChannel();
					await db.Channel.updateOne({ _id: channel._id }, { $set: { is_default: true } });
					await announceDefaults(ctx);
					return {};
				},
			},

			removeDefault: {
				params: params({ stream_id: p.int() }),
				async handler(ctx: Ctx<{ stream_id: number }>) {
					if (!isAdmin(me(ctx).role)) throw adminRequired();
					const { channel } = await visibleChannel(ctx, ctx.params.stream_id);
					if (!channel.is_default) throw badRequest("Channel is not a default channel.");
					await db.Channel.updateOne({ _id: channel._id }, { $set: { is_default: false } });
					await announceDefaults(ctx);
					return {};
				},
			},

			listFolders: {
				params: params({ include_archived: p.bool({ optional: true }) }),
				async handler(ctx: Ctx<{ include_archived?: boolean }>) {
					me(ctx);
					const filter = ctx.params.include_archived ? { realm_id: db.realmId } : { realm_id: db.realmId, is_archived: false };
					return { channel_folders: (await db.ChannelFolder.find(filter).sort({ order: 1 }).lean()).map(folderView) };
				},
			},

			createFolder: {
				params: params({ name: p.string(), description: p.string({ optional: true }) }),
				async handler(ctx: Ctx<{ name: string; description?: string }>) {
					const actor = me(ctx);
					if (!isAdmin(actor.role)) throw adminRequired();
					return { channel_folder_id: await createFolder(db, actor.user_id, ctx.params.name, ctx.params.description ?? "") };
				},
			},

			updateFolder: {
				params: params({ channel_folder_id: p.int(), name: p.string({ optional: true }), description: p.string({ optional: true }), is_archived: p.bool({ optional: true }) }),
				async handler(ctx: Ctx<{ channel_folder_id: number; name?: string; description?: string; is_archived?: boolean }>) {
					const actor = me(ctx);
					if (!isAdmin(actor.role)) throw adminRequired();
					const { channel_folder_id, ...changes } = ctx.params;
					await updateFolder(db, channel_folder_id, changes);
					return {};
				},
			},

			/** Deprecated: mute (add) or unmute (remove) a topic, naming the channel by ID or by name. */
			muteTopic: {
				params: params({
					stream_id: p.int({ optional: true }),
					stream: p.string({ optional: true }),
					topic: p.string(),
					op: p.oneOf(["add", "remove"]),
				}),
				async handler(ctx: Ctx<{ stream_id?: number; stream?: string; topic: string; op: "add" | "remove" }>) {
					const actor = me(ctx);
					const q = ctx.params;
					if ((q.stream_id === undefined) === (q.stream === undefined)) throw badRequest("Please choose one: 'stream' or 'stream_id'.");
					let channelId = q.stream_id;
					if (q.stream !== undefined) {
						const c = await db.Channel.findOne({ realm_id: db.realmId, name_key: q.stream.trim().toLowerCase() }).lean();
						if (!c) throw channelDoesNotExist(q.stream);
						channelId = c._id;
					}
					const { graph, channel, subscribed } = await visibleChannel(ctx, channelId!);
					if (!hasContentAccess(graph, actor, channel, subscribed)) throw invalidChannel();
					const topic = topicFromClient(graph, q.topic);
					const change = await setVisibility(db, actor.user_id, channel._id, topic, q.op === "add" ? VisibilityPolicy.MUTED : VisibilityPolicy.NONE);
					await ctx.broadcast("channels.userTopicChanged", topicChange(graph, change));
					return {};
				},
			},

			/**
			 * For the messages service: follows or unmutes a topic for users whose settings ask for it
			 * after they sent to it, started it, reacted in it or were mentioned in it (the messages
			 * service applies the settings). Zulip's rules: following replaces any other policy;
			 * unmuting applies only in a channel the user muted, to a topic neither followed nor
			 * unmuted. Returns the policies that changed.
			 */
			autoTopicVisibility: {
				visibility: "public",
				params: params({ channel_id: p.int(), topic: p.string(), follow: p.intList(), unmute: p.intList() }),
				async handler(ctx: Ctx<{ channel_id: number; topic: string; follow: number[]; unmute: number[] }>) {
					const { channel_id, topic } = ctx.params;
					const follow = new Set(ctx.params.follow);
					const userIds = [...new Set([...follow, ...ctx.params.unmute])];
					const [topics, mutedSubs] = await Promise.all([
						db.UserTopic.find({ _id: { $in: userIds.map((u) => userTopicKey(u, channel_id, topic)) } }, { user_id: 1, visibility_policy: 1 }).lean(),
						db.Subscription.find({ _id: { $in: ctx.params.unmute.map((u) => subscriptionKey(u, channel_id)) }, is_muted: true }, { user_id: 1 }).lean(),
					]);
					const current = new Map(topics.map((t) => [t.user_id, t.visibility_policy]));
					const muted = new Set(mutedSubs.map((s) => s.user_id));
					const changed: Array<{ user_id: number; visibility_policy: number }> = [];
					for (const userId of userIds) {
						const now = current.get(userId) ?? VisibilityPolicy.NONE;
						let next: number | undefined;
						if (follow.has(userId)) next = VisibilityPolicy.FOLLOWED;
						else if (muted.has(userId) && now !== VisibilityPolicy.FOLLOWED) next = VisibilityPolicy.UNMUTED;
						if (next === undefined || next === now) continue;
						const change = await setVisibility(db, userId, channel_id, topic, next);
						await ctx.broadcast("channels.userTopicChanged", topicChange(await db.graphs.get(), change));
						changed.push({ user_id: userId, visibility_policy: next });
					}
					return { changed };
				},
			},

			setTopicVisibility: {
				params: params({ stream_id: p.int(), topic: p.string(), visibility_policy: p.oneOf([0, 1, 2, 3]) }),
				async handler(ctx: Ctx<{ stream_id: number; topic: string; visibility_policy: number }>) {
					const { actor, graph, channel, subscribed } = await visibleChannel(ctx, ctx.params.stream_id);
					if (!hasContentAccess(graph, actor, channel, subscribed)) throw invalidChannel();
					const topic = topicFromClient(graph, ctx.params.topic);
					const change = await setVisibility(db, actor.user_id, channel._id, topic, ctx.params.visibility_policy);
					await ctx.broadcast("channels.userTopicChanged", topicChange(graph, change));
					return {};
				},
			},

			/**
			 * For the messages service: may the caller post to this channel (by ID or name), and
			 * who receives the message. One call per message sent.
			 */
			sendTarget: {
				visibility: "public",
				params: params({ channel: p.either([p.int(), p.string()]) }),
				async handler(ctx: Ctx<{ channel: number | string }>) {
					const actor = me(ctx);
					const graph = await db.graphs.get();
					const ref = ctx.params.channel;
					const channel = await db.Channel.findOne(typeof ref === "number" ? { _id: ref, realm_id: db.realmId } : { realm_id: db.realmId, name_key: ref.trim().toLowerCase() }).lean();
					const sub = channel && (await db.Subscription.findOne({ _id: subscriptionKey(actor.user_id, channel._id), active: true }, { is_muted: 1 }).lean());
					const subscribed = !!sub;
					if (!channel || !hasMetadataAccess(graph, actor, channel, subscribed)) {
						throw typeof ref === "number"
							? apiError(400, "STREAM_DOES_NOT_EXIST", `Channel with ID '${ref}' does not exist`, { stream_id: ref })
							: channelDoesNotExist(ref);
					}
					if (channel.is_archived) throw badRequest(`Not authorized to send to channel '${channel.name}'`);
					if (!hasContentAccess(graph, actor, channel, subscribed) || !graph.allows(channel.settings.can_send_message_group, actor.user_id)) {
						throw badRequest(`You do not have permission to post in this channel.`);
					}
					return { ...sendTargetOf(channel, (await subscribersOf(graph, [channel._id])).get(channel._id)!), muted_by_sender: !!sub?.is_muted };
				},
			},

			/**
			 * For the messages service: a channel that Notification Bot announces a move or a
			 * resolved topic in. The caller has already been allowed the move, so nothing is checked
			 * beyond the channel existing.
			 */
			notificationTarget: {
				visibility: "public",
				params: params({ channel_id: p.int() }),
				async handler(ctx: Ctx<{ channel_id: number }>): Promise<ChannelTarget> {
					const channel = await db.Channel.findOne({ _id: ctx.params.channel_id, realm_id: db.realmId }).lean();
					if (!channel) throw invalidChannel();
					return sendTargetOf(channel, (await subscribersOf(await db.graphs.get(), [channel._id])).get(channel._id)!);
				},
			},

			/**
			 * For the messages service: what the caller may do with messages in a channel, from
			 * the channel's group settings and the organization's (the spec's permission rules).
			 */
			messagePermissions: {
				visibility: "public",
				params: params({ channel_id: p.int() }),
				async handler(ctx: Ctx<{ channel_id: number }>) {
					const actor = me(ctx);
					const graph = await db.graphs.get();
					const channel = await db.Channel.findOne({ _id: ctx.params.channel_id, realm_id: db.realmId }).lean();
					if (!channel) throw invalidChannel();
					const subscribed = !!(await db.Subscription.exists({ _id: subscriptionKey(actor.user_id, channel._id), active: true }));
					const content = hasContentAccess(graph, actor, channel, subscribed);
					const admin = isChannelAdmin(graph, actor, channel);
					const allows = (key: keyof ChannelDoc["settings"]) => graph.allows(channel.settings[key], actor.user_id);
					const deleteAny = content && (graph.realmAllows("can_delete_any_message_group", actor.user_id) || allows("can_delete_any_message_group"));
					return {
						content_access: content,
						can_send: content && !channel.is_archived && allows("can_send_message_group"),
						can_delete_any: deleteAny,
						can_delete_own: deleteAny || graph.realmAllows("can_delete_own_message_group", actor.user_id) || allows("can_delete_own_message_group"),
						can_move_within: content && (admin || graph.realmAllows("can_move_messages_between_topics_group", actor.user_id) || allows("can_move_messages_within_channel_group")),
						can_move_out: content && (admin || graph.realmAllows("can_move_messages_between_channels_group", actor.user_id) || allows("can_move_messages_out_of_channel_group")),
						is_archived: channel.is_archived,
						topics_policy: channel.topics_policy,
					};
				},
			},

			/** For the messages service: the channels whose history the caller may read. */
			readableChannels: {
				visibility: "public",
				params: params({ channel_ids: p.intList() }),
				async handler(ctx: Ctx<{ channel_ids: number[] }>) {
					const actor = me(ctx);
					const graph = await db.graphs.get();
					const [channels, subs] = await Promise.all([db.Channel.find({ _id: { $in: ctx.params.channel_ids }, realm_id: db.realmId }).lean(), activeSubs(actor.user_id)]);
					return {
						channels: channels
							.filter((c) => hasContentAccess(graph, actor, c, subs.has(c._id)))
							.map((c) => ({ channel_id: c._id, name: c.name, history_public_to_subscribers: c.history_public_to_subscribers, subscribed: subs.has(c._id) })),
					};
				},
			},

			/** For the messages service (is:muted, is:followed): the caller's muted channels and topic policies. */
			topicPolicies: {
				visibility: "public",
				params: params({}),
				async handler(ctx: Ctx) {
					const actor = me(ctx);
					const [muted, topics] = await Promise.all([
						db.Subscription.find({ user_id: actor.user_id, active: true, is_muted: true }, { channel_id: 1 }).lean(),
						db.UserTopic.find({ user_id: actor.user_id }).lean(),
					]);
					return {
						muted_channel_ids: muted.map((s) => s.channel_id),
						topics: topics.map((t) => ({ channel_id: t.channel_id, topic_key: t.topic.toLowerCase(), visibility_policy: t.visibility_policy })),
					};
				},
			},

			/** For the messages service (channels:public): public channels whose history the caller may read. */
			publicChannels: {
				visibility: "public",
				params: params({}),
				async handler(ctx: Ctx) {
					const actor = me(ctx);
					const graph = await db.graphs.get();
					const [channels, subs] = await Promise.all([db.Channel.find({ realm_id: db.realmId, invite_only: false }).lean(), activeSubs(actor.user_id)]);
					return { channel_ids: channels.filter((c) => c.history_public_to_subscribers && hasContentAccess(graph, actor, c, subs.has(c._id))).map((c) => c._id) };
				},
			},

			/** For the messages service: channel IDs by name (a narrow may name channels). */
			idsByName: {
				visibility: "public",
				params: params({ names: p.stringList() }),
				async handler(ctx: Ctx<{ names: string[] }>) {
					const keys = ctx.params.names.map((n) => n.trim().toLowerCase());
					const found = await db.Channel.find({ realm_id: db.realmId, name_key: { $in: keys } }, { _id: 1, name_key: 1 }).lean();
					return { ids: Object.fromEntries(found.map((c) => [c.name_key, c._id])) };
				},
			},

			/** For message rendering: the channels a message links to, among those the sender may know. */
			linkTargets: {
				visibility: "public",
				params: params({ names: p.stringList() }),
				async handler(ctx: Ctx<{ names: string[] }>) {
					const actor = me(ctx);
					if (!ctx.params.names.length) return { channels: [] };
					const graph = await db.graphs.get();
					const [found, subs] = await Promise.all([
						db.Channel.find({ realm_id: db.realmId, name_key: { $in: ctx.params.names.map((n) => n.trim().toLowerCase()) } }).lean(),
						activeSubs(actor.user_id),
					]);
					return {
						channels: found.filter((c) => hasMetadataAccess(graph, actor, c, subs.has(c._id))).map((c) => ({ id: c._id, name: c.name })),
					};
				},
			},

			/** For the messages service: names of channels, for display_recipient. */
			names: {
				visibility: "public",
				params: params({ channel_ids: p.intList() }),
				async handler(ctx: Ctx<{ channel_ids: number[] }>) {
					const found = await db.Channel.find({ _id: { $in: ctx.params.channel_ids } }, { _id: 1, name: 1 }).lean();
					return { names: Object.fromEntries(found.map((c) => [c._id, c.name])) };
				},
			},

			registerState: {
				visibility: "public",
				async handler(ctx: Ctx<RegisterStateParams>) {
					const actor = me(ctx);
					const wants = (t: string) => ctx.params.event_types === null || ctx.params.event_types.includes(t);
					if (!["subscription", "stream", "default_streams", "default_stream_groups", "user_topic", "muted_topics", "channel_folders"].some(wants)) return {};
					const graph = await db.graphs.get();
					const [channels, subs] = await Promise.all([allChannels(), db.Subscription.find({ user_id: actor.user_id }).lean()]);
					const mine = new Map<number, SubscriptionDoc>(subs.map((s) => [s.channel_id, s]));
					const visible = channels.filter((c) => hasMetadataAccess(graph, actor, c, !!mine.get(c._id)?.active));
					const out: Record<string, unknown> = {};
					if (wants("subscription")) {
						const subscribers = ctx.params.include_subscribers ? await subscribersOf(graph, visible.map((c) => c._id)) : undefined;
						const withSubs = (c: ChannelDoc, v: Record<string, unknown>) => (subscribers ? { ...v, subscribers: subscribers.get(c._id) } : v);
						out.subscriptions = visible.filter((c) => mine.get(c._id)?.active).map((c) => subscriptionView(graph, c, mine.get(c._id)!, subscribers?.get(c._id)));
						out.unsubscribed = visible.filter((c) => mine.has(c._id) && !mine.get(c._id)!.active).map((c) => subscriptionView(graph, c, mine.get(c._id)!, subscribers?.get(c._id)));
						out.never_subscribed = visible.filter((c) => !mine.has(c._id) && !c.is_archived).map((c) => withSubs(c, channelView(graph, c)));
					}
					if (wants("stream")) out.streams = visible.filter((c) => !c.is_archived).map((c) => channelView(graph, c));
					if (wants("default_streams")) {
						out.realm_default_streams = isGuest(actor.role) ? [] : channels.filter((c) => c.is_default && !c.is_archived).map((c) => channelView(graph, c));
					}
					// Default channel groups do not exist yet.
					if (wants("default_stream_groups")) out.realm_default_stream_groups = [];
					if (wants("user_topic") || wants("muted_topics")) {
						const allowEmpty = !!ctx.params.client_capabilities.empty_topic_name;
						const topics = await db.UserTopic.find({ user_id: actor.user_id }).lean();
						const names = new Map(channels.map((c) => [c._id, c.name]));
						if (wants("user_topic")) {
							out.user_topics = topics.map((t) => ({
								stream_id: t.channel_id,
								topic_name: topicForClient(graph, t.topic, allowEmpty),
								last_updated: t.last_updated,
								visibility_policy: t.visibility_policy,
							}));
						}
						// The deprecated list is left out when the modern one is asked for by name.
						if (wants("muted_topics") && !(ctx.params.event_types ?? []).includes("user_topic")) {
							out.muted_topics = topics
								.filter((t) => t.visibility_policy === VisibilityPolicy.MUTED && names.has(t.channel_id))
								.map((t) => [names.get(t.channel_id), topicForClient(graph, t.topic, allowEmpty), t.last_updated]);
						}
					}
					if (wants("channel_folders")) {
						out.channel_folders = (await db.ChannelFolder.find({ realm_id: db.realmId }).sort({ order: 1 }).lean()).map(folderView);
					}
					return out;
				},
			},
		},

		events: {
			"users.groupsChanged"() {
				db.graphs?.invalidate();
			},
			"users.changed"() {
				db.graphs?.invalidate();
			},
			/** Messages moved into a channel may bring a named topic with them. */
			async "messages.moved"(ctx: Context<{ channel_id?: number; topic: string }>) {
				if (ctx.params.channel_id && ctx.params.topic) await db.Channel.updateOne({ _id: ctx.params.channel_id }, { $set: { has_named_topics: true } });
			},
			/** Derived state the channel objects show: first message, recent activity, named topics. */
			async "message.sent"(ctx: Context<{ channel_id?: number; message_id: number; timestamp: number; topic?: string }>) {
				const { channel_id, message_id, timestamp, topic } = ctx.params;
				if (!channel_id) return;
				await db.Channel.updateOne({ _id: channel_id, first_message_id: null }, { $set: { first_message_id: message_id } });
				const set: Record<string, unknown> = { last_message_at: timestamp };
				if (topic) set.has_named_topics = true;
				await db.Channel.updateOne({ _id: channel_id }, { $set: set });
			},
		},

		async started(this: any) {
			conn = await connectServiceDb(config.mongoUrl, config.dbPrefix, "channels");
			Object.assign(db, {
				Channel: channelModel(conn),
				Subscription: subscriptionModel(conn),
				ChannelFolder: channelFolderModel(conn),
				UserTopic: userTopicModel(conn),
				nextId: counters(conn),
				graphs: new GroupGraphCache(() => this.broker.call("users.groupGraph", {})),
			});
			await ensureIndexes(conn);
		},

		async stopped() {
			await conn?.close();
		},
	} as ServiceSchema;
}
