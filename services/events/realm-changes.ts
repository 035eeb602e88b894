// Organization-wide and per-user settings as Zulip's events: `user_group`,
// `custom_profile_fields`, `realm`, `default_streams`, `alert_words`, `muted_users` and
// `scheduled_messages`.
// Each comes from one broadcast whose payload (shared/org-events.ts) carries the event's fields
// and who gets it; broadcasts without them (a node's cache refresh) send nothing.
import type { Context } from "moleculer";
import type {
	AlertWordsChanged,
	DefaultChannelsChanged,
	MutesChanged,
	GroupsChanged,
	ProfileFieldsChanged,
	RealmChanged,
	SchedulingChanged,
} from "../../shared/org-events";
import { personalEvent, type Deliver } from "./deliver";
import type { QueueRegistry } from "./queues";

/** Settings Zulip sends as `update_dict` (property `default`) for their history; the rest as `update`. */
const UPDATE_DICT = new Set(["allow_message_editing", "edit_topic_policy", "message_content_edit_limit_seconds"]);

export function realmChangeHandlers(registry: () => QueueRegistry, deliver: Deliver) {
	const to = (userIds: Iterable<number>) => [...registry().of(new Set(userIds))];

	return {
		"users.groupsChanged"(ctx: Context<GroupsChanged>) {
			const { events, user_ids } = ctx.params;
			if (!events?.length || !user_ids) return;
			const queues = to(user_ids);
			for (const event of events) {
				const deactivation = event.op === "update" && (event.data as Record<string, unknown>).deactivated === true;
				if (!deactivation) {
					deliver(queues, "user_group", () => event);
					continue;
				}
				// Clients without the include_deactivated_groups capability see the group removed (Zulip's rule).
				deliver(queues.filter((q) => q.options.include_deactivated_groups), "user_group", () => event);
				deliver(queues.filter((q) => !q.options.include_deactivated_groups), "user_group", () => ({ op: "remove", group_id: event.group_id }));
			}
		},

		"users.profileFieldsChanged"(ctx: Context<ProfileFieldsChanged>) {
			const { fields, user_ids } = ctx.params;
			if (!fields || !user_ids) return;
			deliver(to(user_ids), "custom_profile_fields", () => ({ fields }));
		},

		"users.realmChanged"(ctx: Context<RealmChanged>) {
			const { changes, user_ids, as_dict, property: dictProperty } = ctx.params;
			if (!changes || !user_ids) return;
			const queues = to(user_ids);
			if (as_dict) {
				deliver(queues, "realm", () => ({ op: "update_dict", property: dictProperty ?? "default", data: changes }));
				return;
			}
			for (const [property, value] of Object.entries(changes)) {
				if (property === "topics_policy") {
					// With the older boolean beside it, as Zulip sends it.
					deliver(queues, "realm", () => ({ op: "update_dict", property: "default", data: { topics_policy: value, mandatory_topics: value === "disable_empty_topic" } }));
				} else if (UPDATE_DICT.has(property) || property.startsWith("can_")) {
					deliver(queues, "realm", () => ({ op: "update_dict", property: "default", data: { [property]: value } }));
				} else deliver(queues, "realm", () => ({ op: "update", property, value }));
			}
		},

		"channels.defaultsChanged"(ctx: Context<DefaultChannelsChanged>) {
			deliver(to(ctx.params.user_ids), "default_streams", () => ({ default_streams: ctx.params.default_streams }));
		},

		"messages.alertWordsChanged"(ctx: Context<AlertWordsChanged>) {
			deliver(to([ctx.params.user_id]), "alert_words", () => ({ alert_words: ctx.params.alert_words }));
		},

		"users.mutesChanged"(ctx: Context<MutesChanged>) {
			deliver(to([ctx.params.user_id]), "muted_users", () => ({ muted_users: ctx.params.muted_users }));
		},

		"scheduling.changed"(ctx: Context<SchedulingChanged>) {
			deliver(to([ctx.params.user_id]), "scheduled_messages", () => personalEvent("scheduled_messages", ctx.params));
		},
	};
}
