// Organization changes as Zulip's events: `subscription`, `stream`, `realm_user`, `realm_bot`,
// `user_settings` and `user_topic`. The users and channels services broadcast each change once,
// with the new values and who may see them (shared/org-events.ts); this turns a broadcast into the
// events of each queue it concerns, never calling back.
import type { Context } from "moleculer";
import type {
	ChannelAccessChanged,
	ChannelFirstMessageChanged,
	ChannelsArchived,
	ChannelsCreated,
	ChannelUpdated,
	SettingsChanged,
	StreamAudience,
	SubscriptionPropertiesChanged,
	SubscriptionsChanged,
	UsersChanged,
	UserTopicChanged,
} from "../../shared/org-events";
import type { Deliver } from "./deliver";
import type { Queue, QueueRegistry } from "./queues";

/** Stream properties sent as `stream` update events under their own name. */
const STREAM_PROPERTIES = ["message_retention_days", "folder_id", "topics_policy"];
/** Privacy properties: an event for each that changed (invite_only's carries the other two, as Zulip's). */
const PRIVACY = ["invite_only", "is_web_public", "history_public_to_subscribers"];

export function orgChangeHandlers(registry: () => QueueRegistry, deliver: Deliver) {
	const to = (userIds: Iterable<number>) => registry().of(new Set(userIds));
	// Queues registered with the archived_channels capability know archived channels; the others
	// are told of an archived channel as of a deleted one (Zulip's for_archiving, for_unarchiving).
	const knowingArchived = (userIds: Iterable<number>) => [...to(userIds)].filter((q) => q.options.archived_channels);
	const notKnowingArchived = (userIds: Iterable<number>) => [...to(userIds)].filter((q) => !q.options.archived_channels);
	const streamCreate = (s: StreamAudience, targets: Iterable<Queue> = to(s.user_ids)) => deliver(targets, "stream", () => ({ op: "create", streams: [s.stream] }));
	// Zulip's delete event lists the channels as objects and (feature level 343) by ID.
	const streamDelete = (stream: Record<string, unknown>, userIds: number[], targets: Iterable<Queue> = to(userIds)) =>
		deliver(targets, "stream", () => ({ op: "delete", streams: [stream], stream_ids: [stream.stream_id] }));
	const archivedUpdate = (stream: Record<string, unknown>, targets: Iterable<Queue>, value: boolean) =>
		deliver(targets, "stream", () => ({ op: "update", stream_id: stream.stream_id, name: stream.name, property: "is_archived", value }));

	return {
		"channels.created"(ctx: Context<ChannelsCreated>) {
			for (const s of ctx.params.streams ?? []) streamCreate(s);
		},

		"channels.subscriptionsChanged"(ctx: Context<SubscriptionsChanged>) {
			const p = ctx.params;
			if (p.op === "add") {
				// The channel first for those who could not see it, then the subscription, as Zulip.
				for (const s of p.streams ?? []) streamCreate(s);
				for (const a of p.added ?? []) deliver(to([a.user_id]), "subscription", () => ({ op: "add", subscriptions: a.subscriptions }));
			} else if (p.op === "remove") {
				for (const r of p.removed ?? []) deliver(to([r.user_id]), "subscription", () => ({ op: "remove", subscriptions: r.subscriptions }));
				for (const s of p.streams ?? []) streamDelete(s.stream, s.user_ids);
			} else return;
			const op = p.op === "add" ? "peer_add" : "peer_remove";
			for (const peer of p.peers ?? []) {
				deliver(to(peer.audience), "subscription", () => ({ op, stream_ids: [peer.stream_id], user_ids: peer.user_ids }));
			}
		},

		"channels.accessChanged"(ctx: Context<ChannelAccessChanged>) {
			const { user_id, created, peers, deleted } = ctx.params;
			const mine = [...to([user_id])];
			if (created.length) deliver(mine, "stream", () => ({ op: "create", streams: created }));
			for (const peer of peers) deliver(mine, "subscription", () => ({ op: "peer_add", stream_ids: [peer.stream_id], user_ids: peer.user_ids }));
			if (deleted.length) deliver(mine, "stream", () => ({ op: "delete", streams: deleted, stream_ids: deleted.map((s) => s.stream_id) }));
		},

		"channels.archived"(ctx: Context<ChannelsArchived>) {
			// Zulip's do_deactivate_stream: is_archived to everyone who may see the channel, then delete
			// to the queues that do not know archived channels.
			for (const s of ctx.params.streams ?? []) {
				archivedUpdate(s.stream, to(s.user_ids), true);
				streamDelete(s.stream, s.user_ids, notKnowingArchived(s.user_ids));
			}
		},

		"channels.firstMessageChanged"(ctx: Context<ChannelFirstMessageChanged>) {
			// Zulip's check_update_first_message_id: to those told of the deletion, before its delete_message.
			const { channel_id, name, first_message_id, user_ids } = ctx.params;
			deliver(to(user_ids), "stream", () => ({ op: "update", property: "first_message_id", value: first_message_id, stream_id: channel_id, name }));
		},

		"channels.updated"(ctx: Context<ChannelUpdated>) {
			const p = ctx.params;
			if (!p.stream || !p.audience) return;
			const stream = p.stream;
			const before = p.before ?? {};
			const gained = new Set(p.gained ?? []);
			const gainedKnowing = new Set(p.gained_with_archived ?? []);
			const lostKnowing = p.lost_with_archived ?? [];
			// Unarchived (Zulip's do_unarchive_stream): is_archived to everyone who could see the channel,
			// then create to the queues that did not know it.
			if (p.changes.is_archived === false) {
				archivedUpdate(stream, to([...p.audience.filter((u) => !gainedKnowing.has(u)), ...lostKnowing]), false);
			}
			if (p.lost?.length) streamDelete(before, p.lost, notKnowingArchived(p.lost));
			if (lostKnowing.length) streamDelete(before, lostKnowing, knowingArchived(lostKnowing));
			if (p.gained?.length) streamCreate({ stream, user_ids: p.gained }, notKnowingArchived(p.gained));
			if (gainedKnowing.size) streamCreate({ stream, user_ids: [...gainedKnowing] }, knowingArchived(gainedKnowing));
			// Queues not knowing archived channels hear nothing of an archived one.
			const seeing = [
				...(stream.is_archived ? [] : notKnowingArchived(p.audience.filter((u) => !gained.has(u)))),
				...knowingArchived(p.audience.filter((u) => !gainedKnowing.has(u))),
			];
			const update = (fields: Record<string, unknown>) =>
				deliver(seeing, "stream", () => ({ op: "update", stream_id: p.channel_id, name: stream.name, ...fields }));
			const c = p.changes;
			if (c.name !== undefined) update({ property: "name", value: c.name, name: p.old_name });
			if (c.description !== undefined) update({ property: "description", value: c.description, rendered_description: stream.rendered_description });
			for (const key of PRIVACY) {
				if (c[key] === undefined || c[key] === before[key]) continue;
				const others = key === "invite_only" ? { history_public_to_subscribers: stream.history_public_to_subscribers, is_web_public: stream.is_web_public } : {};
				update({ property: key, value: c[key], ...others });
			}
			for (const key of STREAM_PROPERTIES) if (c[key] !== undefined) update({ property: key, value: c[key] });
			for (const [key, value] of Object.entries(c)) {
				if (key.startsWith("settings.")) update({ property: key.slice("settings.".length), value });
			}
		},

		"channels.subscriptionPropertiesChanged"(ctx: Context<SubscriptionPropertiesChanged>) {
			const mine = to([ctx.params.user_id]);
			const queues = [...mine];
			for (const { stream_id, property, value } of ctx.params.changes) {
				if (property === "in_home_view" || property === "is_muted") {
					// Zulip sends the deprecated in_home_view first, then is_muted.
					const muted = property === "in_home_view" ? !value : value;
					deliver(queues, "subscription", () => ({ op: "update", stream_id, property: "in_home_view", value: !muted }));
					deliver(queues, "subscription", () => ({ op: "update", stream_id, property: "is_muted", value: muted }));
				} else deliver(queues, "subscription", () => ({ op: "update", stream_id, property, value }));
			}
		},

		"channels.userTopicChanged"(ctx: Context<UserTopicChanged>) {
			const p = ctx.params;
			if (p.visibility_policy === undefined) return;
			deliver(to([p.user_id]), "user_topic", () => ({
				stream_id: p.channel_id,
				// Clients without the empty_topic_name capability know the empty topic by its display name.
				topic_name: p.topic === "" ? (p.empty_topic_display_name ?? "") : p.topic,
				last_updated: p.last_updated,
				visibility_policy: p.visibility_policy,
			}));
		},

		"users.changed"(ctx: Context<UsersChanged>) {
			const p = ctx.params;
			if (p.user_id === undefined || !p.audience) return;
			const { user_id, audience } = p;
			const viewers = new Set(audience.email_viewers);
			const everyone = () => to(audience.active);
			const botAudience = [...audience.admins, ...(p.bot_owner_id ? [p.bot_owner_id] : [])];

			if (p.person) {
				// Each viewer sees the address only if allowed, and computes a gravatar itself if it asked to.
				const person = p.person;
				for (const q of everyone()) {
					if (!q.wants("realm_user")) continue;
					const sees = viewers.has(q.options.user_id);
					const shown: Record<string, unknown> = { ...person, delivery_email: sees ? person.delivery_email : null };
					if (q.options.client_gravatar && p.gravatar && sees) shown.avatar_url = null;
					q.push({ type: "realm_user", op: "add", person: shown });
				}
				if (p.bot) deliver(to(botAudience), "realm_bot", () => ({ op: "add", bot: p.bot }));
			}

			const c = p.changes ?? {};
			const update = (targets: Iterable<Queue>, person: Record<string, unknown>) =>
				deliver(targets, "realm_user", () => ({ op: "update", person: { user_id, ...person } }));
			if (c.full_name !== undefined) {
				update(everyone(), { full_name: c.full_name });
				if (p.bot_owner_id) deliver(to(botAudience), "realm_bot", () => ({ op: "update", bot: { user_id, full_name: c.full_name } }));
			}
			if (c.role !== undefined) update(everyone(), { role: c.role });
			if (c.avatar_version !== undefined) {
				// As Zulip's notify_avatar_url_change: the URLs to everyone (client_gravatar clients too), and a bot's to its administrators.
				update(everyone(), { avatar_source: c.avatar_source, avatar_url: c.avatar_url, avatar_url_medium: c.avatar_url_medium, avatar_version: c.avatar_version });
				if (p.bot_owner_id) deliver(to(botAudience), "realm_bot", () => ({ op: "update", bot: { user_id, avatar_url: c.avatar_url } }));
			}
			if (c.is_active !== undefined) update(everyone(), { is_active: c.is_active });
			// Zulip's do_deactivate_user tells a bot's administrators too.
			if (c.is_active === false && p.bot_owner_id) deliver(to(botAudience), "realm_bot", () => ({ op: "update", bot: { user_id, is_active: false } }));
			// A deactivated user's queues go, as in Zulip: their next GET /events is BAD_EVENT_QUEUE_ID.
			if (c.is_active === false) registry().deleteUser(user_id);
			for (const bot of p.bot_updates ?? []) deliver(to(botAudience), "realm_bot", () => ({ op: "update", bot: { user_id, ...bot } }));
			const oc = p.bot_owner_change;
			if (oc && p.bot_owner_id) {
				// As Zulip's do_change_bot_owner: a non-administrator loses the bot from their list and
				// the new owner gains it; the administrators (who list every bot) get an update.
				const owner = p.bot_owner_id;
				if (oc.previous_owner_id !== null && !oc.previous_owner_is_admin) deliver(to([oc.previous_owner_id]), "realm_bot", () => ({ op: "delete", bot: { user_id } }));
				if (!oc.owner_is_admin) deliver(to([owner]), "realm_bot", () => ({ op: "add", bot: oc.bot }));
				const updated = new Set(botAudience);
				if (!oc.owner_is_admin) updated.delete(owner);
				if (oc.previous_owner_id !== null && !oc.previous_owner_is_admin) updated.delete(oc.previous_owner_id);
				deliver(to(updated), "realm_bot", () => ({ op: "update", bot: { user_id, owner_id: owner } }));
				update(everyone(), { bot_owner_id: owner });
			}
			if (c.timezone !== undefined) update(everyone(), { email: p.email, timezone: c.timezone });
			if (c.delivery_email !== undefined || c.email_address_visibility !== undefined) {
				if (c.delivery_email !== undefined) update(to(audience.email_viewers), { delivery_email: c.delivery_email });
				else {
					// A visibility change: the address to those who may now see it, null to the others.
					for (const q of everyone()) {
						if (!q.wants("realm_user")) continue;
						q.push({ type: "realm_user", op: "update", person: { user_id, delivery_email: viewers.has(q.options.user_id) ? (p.delivery_email ?? null) : null } });
					}
				}
				if (c.email_address_visibility !== undefined || p.email === c.delivery_email) update(everyone(), { new_email: p.email });
			}
			if (Array.isArray(c.profile_data)) {
				for (const f of c.profile_data as Array<{ id: number; value: unknown }>) {
					const value = f.value === null || f.value === undefined ? null : typeof f.value === "string" ? f.value : JSON.stringify(f.value);
					update(everyone(), { custom_profile_field: { id: f.id, value } });
				}
			}
		},

		"users.settingsChanged"(ctx: Context<SettingsChanged>) {
			const { user_id, changes, language_name } = ctx.params;
			const queues = [...to([user_id])];
			for (const [property, value] of Object.entries(changes)) {
				if (property === "full_name") continue; // a realm_user event, from users.changed
				deliver(queues, "user_settings", () => ({ op: "update", property, value, ...(property === "default_language" && language_name ? { language_name } : {}) }));
			}
		},
	};
}
