// POST /register: the client's initial state. Each service owning part of the state answers a
// `<service>.registerState` action; this action finds every such action in the registry, calls
// them in parallel and merges their parts, so a service that lands later contributes its state
// without a change here.
import type { Context } from "moleculer";
import type { Meta, RegisterState, RegisterStateParams } from "../../shared/actions";
import { p, params } from "../../shared/params";
import { eventTypesParam } from "../../shared/param-bounds";
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from "../../shared/version";

interface RegisterParams {
	apply_markdown?: boolean;
	client_gravatar?: boolean;
	include_subscribers?: boolean | "partial";
	slim_presence?: boolean;
	presence_history_limit_days?: number;
	event_types?: string[];
	all_public_streams?: boolean;
	client_capabilities?: Record<string, boolean>;
	fetch_event_types?: string[];
	narrow?: unknown;
	queue_lifespan_secs?: number;
}

export const registerAction = {
	params: params({
		apply_markdown: p.bool({ optional: true }),
		client_gravatar: p.bool({ optional: true }),
		include_subscribers: p.either([p.bool(), p.oneOf(["partial"])], { optional: true }),
		slim_presence: p.bool({ optional: true }),
		presence_history_limit_days: p.int({ optional: true }),
		event_types: eventTypesParam,
		all_public_streams: p.bool({ optional: true }),
		client_capabilities: { type: "record", key: "string", value: "boolean", optional: true },
		fetch_event_types: eventTypesParam,
		narrow: p.list({ type: "any" }, { optional: true }),
		// Zulip's intentionally undocumented queue lifespan (0: the idle timeout; at most a week).
		queue_lifespan_secs: p.int({ optional: true, min: 0 }),
	}),
	async handler(ctx: Context<RegisterParams, Meta>) {
		const q = ctx.params;
		const stateParams: RegisterStateParams = {
			event_types: q.fetch_event_types ?? q.event_types ?? null,
			client_gravatar: q.client_gravatar ?? true,
			include_subscribers: q.include_subscribers ?? false,
			slim_presence: q.slim_presence ?? false,
			presence_history_limit_days: q.presence_history_limit_days,
			user_avatar_url_field_optional: q.client_capabilities?.user_avatar_url_field_optional ?? false,
			client_capabilities: q.client_capabilities ?? {},
		};
		// The queue first, then the state: an event that happens meanwhile is in both, never in neither.
		const queue = ctx.broker.registry.getServiceList({ onlyAvailable: true }).some((s: { name: string }) => s.name === "events")
			? await ctx.call<{ queue_id: string; last_event_id: number }, Record<string, unknown>>("events.createQueue", {
					event_types: q.event_types,
					narrow: q.narrow,
					lifespan_secs: q.queue_lifespan_secs,
					apply_markdown: q.apply_markdown,
					client_gravatar: q.client_gravatar,
					all_public_streams: q.all_public_streams,
					client_capabilities: q.client_capabilities,
				})
			: { queue_id: null, last_event_id: -1 };
		const contributors = ctx.broker.registry
			.getActionList({ onlyAvailable: true, skipInternal: true })
			.map((a: { name: string }) => a.name)
			.filter((name: string) => name.endsWith(".registerState"));
		const parts = await Promise.all(contributors.map((name: string) => ctx.call<RegisterState, RegisterStateParams>(name, stateParams)));
		return {
			...queue,
			zulip_version: ZULIP_VERSION,
			zulip_feature_level: ZULIP_FEATURE_LEVEL,
			zulip_merge_base: ZULIP_MERGE_BASE,
			...Object.assign({}, ...parts),
		};
	},
};
