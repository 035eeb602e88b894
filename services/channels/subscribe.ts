// POST /users/me/subscriptions: create channels that do not exist yet and subscribe users to
// them, with every permission rule checked before anything is written.
import { isDuplicateKey, upsertRetrying } from "../../shared/db";
import type { Identity, Principal } from "../../shared/actions";
import { badRequest, guestNotAllowed, insufficientPermission, ownerRequired, adminRequired } from "../../shared/errors";
import { isAdmin, isGuest, isOwner } from "../../shared/roles";
import type { GroupGraph } from "../../shared/group-settings";
import { clock } from "../../shared/clock";
import type { ChannelsDb } from "./db";
import type { ChannelDoc } from "./models/channel";
import { subscriptionKey } from "./models/subscription";
import { canAddSubscribers, creationSetting, hasContentAccess } from "./access";
import { checkWebPublicAllowed, checkChannelName, checkDescription, checkRetention, checkTopicsPolicy, defaultSettings, pickGroupSettings, renderDescription } from "./channel-rules";
import { COLORS } from "./channel-view";

export interface SubscribeParams {
	subscriptions: Array<{ name: string; description?: string }>;
	invite_only?: boolean;
	is_web_public?: boolean;
	is_default_stream?: boolean;
	history_public_to_subscribers?: boolean;
	message_retention_days?: unknown;
	topics_policy?: string;
	authorization_errors_fatal?: boolean;
	[setting: string]: unknown;
}

export interface SubscribeResult {
	subscribed: Record<string, string[]>;
	already_subscribed: Record<string, string[]>;
	unauthorized?: string[];
	/** Channels created by this request, for the channels.created event. */
	created: number[];
	/** The subscriptions this request added or reactivated, and its channels, for the events. */
	added: Array<{ user_id: number; channel: ChannelDoc }>;
}

/** A new subscription's settings: notifications follow the user's global settings (null). */
export const NEW_SUBSCRIPTION = {
	is_muted: false,
	pin_to_top: false,
	desktop_notifications: null,
	audible_notifications: null,
	push_notifications: null,
	email_notifications: null,
	wildcard_mentions_notify: null,
};

/**
 * Guests subscribe nobody, themselves included, and create no channel: Zulip refuses them the
 * whole endpoint (require_non_guest_user; the gateway checks it before the parameters too).
 */
export function checkNotGuest(actor: Identity): void {
	if (isGuest(actor.role)) throw guestNotAllowed();
}

export async function subscribe(db: ChannelsDb, graph: GroupGraph, actor: Identity, principals: Principal[], q: SubscribeParams): Promise<SubscribeResult> {
	const fatal = q.authorization_errors_fatal ?? true;
	const others = principals.filter((u) => u.user_id !== actor.user_id);
	const inviteOnly = q.invite_only ?? false;
	const webPublic = q.is_web_public ?? false;

	// Settings for channels this request creates; checked even if none is created, as Zulip does.
	if (webPublic) checkWebPublicAllowed(db.webPublicStreams, graph, actor.user_id);
	if (webPublic && inviteOnly) throw badRequest("A web-public channel cannot be private.");
	const history = q.history_public_to_subscribers ?? !inviteOnly;
	if (!inviteOnly && !history) throw badRequest("Invalid parameters");
	const retention = q.message_retention_days === undefined ? null : checkRetention(q.message_retention_days);
	if (q.message_retention_days !== undefined && !isOwner(actor.role)) throw ownerRequired();
	const topicsPolicy = q.topics_policy === undefined ? "inherit" : checkTopicsPolicy(q.topics_policy);
	const chosenSettings = pickGroupSettings(graph, q);
	if (q.is_default_stream && !isAdmin(actor.role)) throw adminRequired();
	if (q.is_default_stream && inviteOnly) throw badRequest("A default channel cannot be private.");

	// Each requested channel: its name, whether it exists, and whether the actor may use it.
	const wanted = new Map<string, { name: string; description: string }>();
	for (const spec of q.subscriptions) {
		if (!spec || typeof spec.name !== "string") throw badRequest("Invalid subscriptions");
		const name = checkChannelName(spec.name);
		const description = checkDescription(typeof spec.description === "string" ? spec.description : "");
		if (!wanted.has(name.toLowerCase())) wanted.set(name.toLowerCase(), { name, description });
	}
	const existing = new Map(
		(await db.Channel.find({ realm_id: db.realmId, name_key: { $in: [...wanted.keys()] } }).lean()).map((c) => [c.name_key, c]),
	);
	const actorSubs = new Set(
		(await db.Subscription.find({ user_id: actor.user_id, channel_id: { $in: [...existing.values()].map((c) => c._id) }, active: true }).lean()).map((s) => s.channel_id),
	);

	const unauthorized: string[] = [];
	const targets: ChannelDoc[] = [];
	const toCreate: Array<{ name: string; description: string }> = [];
	for (const [key, spec] of wanted) {
		const channel = existing.get(key);
		if (!channel) {
			if (!graph.realmAllows(creationSetting({ invite_only: inviteOnly, is_web_public: webPublic }), actor.user_id)) throw insufficientPermission();
			toCreate.push(spec);
			continue;
		}
		const subscribed = actorSubs.has(channel._id);
		const allowed =
			!channel.is_archived &&
			hasContentAccess(graph, actor, channel, subscribed) &&
			(others.length === 0 || canAddSubscribers(graph, actor, channel, subscribed));
		if (allowed) targets.push(channel);
		else if (fatal) throw badRequest(`Unable to access channel (${channel.name}).`);
		else unauthorized.push(channel.name);
	}
	// Subscribing others to a channel one creates is part of creating it, as in Zulip.

	// Everything is checked: create, then subscribe.
	const created: number[] = [];
	for (const spec of toCreate) {
		const id = await db.nextId("channel");
		const doc: ChannelDoc = {
			_id: id,
			realm_id: db.realmId,
			name: spec.name,
			name_key: spec.name.toLowerCase(),
			description: spec.description,
			rendered_description: renderDescription(spec.description),
			invite_only: inviteOnly,
			is_web_public: webPublic,
			history_public_to_subscribers: history,
			is_archived: false,
			is_default: q.is_default_stream ?? false,
			date_created: clock.now(),
			creator_id: actor.user_id,
			message_retention_days: retention,
			topics_policy: topicsPolicy,
			first_message_id: null,
			last_message_at: null,
			has_named_topics: false,
			folder_id: null,
			settings: { ...defaultSettings(graph, actor.user_id), ...chosenSettings },
		};
		try {
			await db.Channel.create(doc);
			created.push(id);
			targets.push(doc);
		} catch (err) {
			// Created by a concurrent request a moment ago: subscribe to that one.
			if (!isDuplicateKey(err)) throw err;
			const other = await db.Channel.findOne({ realm_id: db.realmId, name_key: doc.name_key }).lean();
			if (other) targets.push(other);
		}
	}

	const result: SubscribeResult = { subscribed: {}, already_subscribed: {}, created, added: [] };
	if (!fatal) result.unauthorized = unauthorized;
	const users = principals.length ? principals : [actor];
	const current = await db.Subscription.find({ user_id: { $in: users.map((u) => u.user_id) }, channel_id: { $in: targets.map((c) => c._id) } }).lean();
	const byKey = new Map(current.map((s) => [s._id, s]));
	const ops: Parameters<typeof db.Subscription.bulkWrite>[0] = [];
	for (const u of users) {
		// New subscriptions take the next colors of the user's palette.
		let n = await db.Subscription.countDocuments({ user_id: u.user_id });
		for (const channel of targets) {
			const key = subscriptionKey(u.user_id, channel._id);
			const sub = byKey.get(key);
			const bucket = sub?.active ? result.already_subscribed : result.subscribed;
			(bucket[String(u.user_id)] ??= []).push(channel.name);
			if (sub?.active) continue;
			result.added.push({ user_id: u.user_id, channel });
			const insert = sub ? {} : { $setOnInsert: { ...NEW_SUBSCRIPTION, user_id: u.user_id, channel_id: channel._id, color: COLORS[n++ % COLORS.length] } };
			ops.push({ updateOne: { filter: { _id: key }, update: { ...insert, $set: { active: true, changed_at: clock.nowMs() } }, upsert: true } });
		}
	}
	if (ops.length) await upsertRetrying(() => db.Subscription.bulkWrite(ops));
	return result;
}
