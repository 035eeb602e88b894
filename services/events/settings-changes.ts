// Zulip's `navigation_view` events (to the user whose views changed) and `realm_playgrounds`,
// `realm_linkifiers` and `realm_emoji` events (the whole list, to every active user).
import type { Context } from "moleculer";
import type { LinkifiersChanged, NavigationViewChanged, PlaygroundsChanged, RealmEmojiChanged } from "../../shared/org-events";
import type { Deliver } from "./deliver";
import type { QueueRegistry } from "./queues";

export function settingsChangeHandlers(registry: () => QueueRegistry, deliver: Deliver) {
	return {
		"users.navigationViewChanged"(ctx: Context<NavigationViewChanged>) {
			deliver(registry().of([ctx.params.user_id]), "navigation_view", () => ({ ...ctx.params.event }));
		},
		"catalog.playgroundsChanged"(ctx: Context<PlaygroundsChanged>) {
			deliver(registry().of(new Set(ctx.params.user_ids)), "realm_playgrounds", () => ({ realm_playgrounds: ctx.params.realm_playgrounds }));
		},
		"catalog.linkifiersChanged"(ctx: Context<LinkifiersChanged>) {
			deliver(registry().of(new Set(ctx.params.user_ids)), "realm_linkifiers", () => ({ realm_linkifiers: ctx.params.realm_linkifiers }));
		},
		"catalog.realmEmojiChanged"(ctx: Context<RealmEmojiChanged>) {
			deliver(registry().of(new Set(ctx.params.user_ids)), "realm_emoji", () => ({ op: "update", realm_emoji: ctx.params.realm_emoji }));
		},
	};
}
