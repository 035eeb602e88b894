// The users service's part of POST /register: the organization, the users and bots, the
// caller's settings, custom profile fields, user groups, presence, statuses, mutes, navigation
// views (the catalog service answers the organization's playgrounds, linkifiers and emoji).
import { requireUser, type RegisterStateParams } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import { systemBots } from "../accounts/system-bots";
import { realmPresences } from "../presence/presence-store";
import { legacyPolicies } from "../realm/realm-settings";
import { registerState } from "./register-state";
import { channelNames, defaultChannelIds } from "../bots/bot-rules";
import { listFields } from "../profile-fields/profile-field-store";
import { realmStatuses } from "../status/status-rules";
import { mutesOf } from "../muting/mute-rules";
import { listViews } from "../navigation-views/navigation-view-rules";
import type { Ctx, ServiceDeps } from "../deps";

export function registerActions({ db, graphs, config, findUser, groupsView }: ServiceDeps) {
	return {
		registerState: {
			visibility: "public",
			async handler(ctx: Ctx<RegisterStateParams>) {
				const self = requireUser(ctx);
				const [user, all, bots, fields] = await Promise.all([findUser(self.user_id), db.User.find({ realm_id: db.realm._id }).sort({ _id: 1 }).lean(), systemBots(db.User), listFields(db)]);
				const wantsBots = ctx.params.event_types === null || ctx.params.event_types.includes("realm_bot");
				const names = wantsBots ? await channelNames(ctx, defaultChannelIds(all.filter((u) => u.is_bot))) : {};
				const state = registerState({ realm: db.realm, user, all, systemBots: bots, fields, server: config, params: ctx.params, channelNames: names });
				// Who may invite follows the organization's can_invite_users_group.
				if ("can_invite_others_to_realm" in state) state.can_invite_others_to_realm = (await graphs.get()).realmAllows("can_invite_users_group", self.user_id);
				const wants = (t: string) => ctx.params.event_types === null || ctx.params.event_types.includes(t);
				if (wants("realm_user_groups")) state.realm_user_groups = await groupsView(false);
				if (wants("presence")) {
					// The modern form for slim_presence or the simplified_presence_events capability, as Zulip's.
					const slim = ctx.params.slim_presence || ctx.params.client_capabilities.simplified_presence_events === true;
					const nowMs = clock.nowMs();
					const { presences, last_update_id } = await realmPresences(db, { slim, historyLimitDays: ctx.params.presence_history_limit_days, nowMs });
					Object.assign(state, { presences, presence_last_update_id: last_update_id, server_timestamp: nowMs / 1000 });
				}
				if (wants("navigation_view")) state.navigation_views = await listViews(db, self.user_id);
				if (wants("user_status")) state.user_status = await realmStatuses(db, all);
				if (wants("muted_users")) state.muted_users = await mutesOf(db, self.user_id);
				if (wants("realm")) {
					// Organization-level permissions, as group-setting values.
					const graph = await graphs.get();
					for (const [key, value] of Object.entries(graph.realm)) state[`realm_${key}`] = value;
					Object.assign(state, legacyPolicies(graph));
				}
				return state;
			},
		},
	};
}
