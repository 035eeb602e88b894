// GET, POST, PATCH and DELETE /navigation_views: the caller's own views, each change announced
// to the caller's queues (users.navigationViewChanged).
import { requireUser, type Ctx } from "../../../shared/actions";
import type { NavigationViewChanged } from "../../../shared/org-events";
import { p, params } from "../../../shared/params";
import type { ServiceDeps } from "../deps";
import { addView, listViews, MAX_FRAGMENT_LENGTH, MAX_VIEW_NAME_LENGTH, removeView, stripped, updateView } from "./navigation-view-rules";

export function navigationViewActions({ db }: ServiceDeps) {
	const announce = (ctx: Ctx<unknown>, user_id: number, event: Record<string, unknown>) =>
		ctx.broadcast("users.navigationViewChanged", { user_id, event } satisfies NavigationViewChanged);

	return {
		listNavigationViews: {
			params: params({}),
			async handler(ctx: Ctx<unknown>) {
				return { navigation_views: await listViews(db, requireUser(ctx).user_id) };
			},
		},

		addNavigationView: {
			params: params({ fragment: p.string({ max: MAX_FRAGMENT_LENGTH }), is_pinned: p.bool(), name: p.string({ optional: true, max: MAX_VIEW_NAME_LENGTH }) }),
			async handler(ctx: Ctx<{ fragment: string; is_pinned: boolean; name?: string }>) {
				const me = requireUser(ctx);
				const fragment = stripped("fragment", ctx.params.fragment);
				const name = ctx.params.name === undefined ? null : stripped("name", ctx.params.name);
				const view = await addView(db, me.user_id, fragment, ctx.params.is_pinned, name);
				await announce(ctx, me.user_id, { type: "navigation_view", op: "add", navigation_view: view });
				return {};
			},
		},

		updateNavigationView: {
			params: params({ fragment: p.string({ max: MAX_FRAGMENT_LENGTH }), is_pinned: p.bool({ optional: true }), name: p.string({ optional: true, max: MAX_VIEW_NAME_LENGTH }) }),
			async handler(ctx: Ctx<{ fragment: string; is_pinned?: boolean; name?: string }>) {
				const me = requireUser(ctx);
				const fragment = stripped("fragment", ctx.params.fragment);
				const name = ctx.params.name === undefined ? undefined : stripped("name", ctx.params.name);
				const data = await updateView(db, me.user_id, fragment, { is_pinned: ctx.params.is_pinned, name });
				await announce(ctx, me.user_id, { type: "navigation_view", op: "update", fragment, data });
				return {};
			},
		},

		removeNavigationView: {
			params: params({ fragment: p.string({ max: MAX_FRAGMENT_LENGTH }) }),
			async handler(ctx: Ctx<{ fragment: string }>) {
				const me = requireUser(ctx);
				const fragment = stripped("fragment", ctx.params.fragment);
				await removeView(db, me.user_id, fragment);
				await announce(ctx, me.user_id, { type: "navigation_view", op: "remove", fragment });
				return {};
			},
		},
	};
}
