// GET /realm/linkifiers (anyone), POST /realm/filters, PATCH and DELETE /realm/filters/{filter_id},
// PATCH /realm/linkifiers (reorder; administrators). Each change broadcasts the list in order:
// Zulip's `realm_linkifiers` event, and the messages service's rendering cache.
import { requireAdmin, requireUser } from "../../../shared/actions";
import type { LinkifiersChanged } from "../../../shared/org-events";
import { p, params } from "../../../shared/params";
import { addLinkifier, listLinkifiers, MAX_PATTERN_LENGTH, removeLinkifier, reorderLinkifiers, updateLinkifier } from "./linkifier-rules";
import { MAX_URL_TEMPLATE_LENGTH } from "../playgrounds/playground-rules";
import { activeUserIds, type Ctx, type ServiceDeps } from "../deps";

type Fields = { pattern: string; url_template: string };

export function linkifierActions(deps: ServiceDeps) {
	const { db } = deps;
	async function announce(ctx: Ctx<unknown>) {
		const [realm_linkifiers, user_ids] = await Promise.all([listLinkifiers(db), activeUserIds(deps)]);
		await ctx.broadcast("catalog.linkifiersChanged", { realm_id: db.realmId, user_ids, realm_linkifiers } satisfies LinkifiersChanged);
	}
	const fields = { pattern: p.string({ max: MAX_PATTERN_LENGTH }), url_template: p.string({ max: MAX_URL_TEMPLATE_LENGTH }) };

	return {
		listLinkifiers: {
			params: params({}),
			async handler(ctx: Ctx<unknown>) {
				requireUser(ctx);
				return { linkifiers: await listLinkifiers(db) };
			},
		},

		/** For the messages service's rendering cache (also refreshed by catalog.linkifiersChanged). */
		linkifiers: {
			visibility: "public",
			params: params({}),
			async handler() {
				return { linkifiers: await listLinkifiers(db) };
			},
		},

		addLinkifier: {
			params: params(fields),
			async handler(ctx: Ctx<Fields>) {
				requireAdmin(ctx);
				const id = await addLinkifier(db, ctx.params);
				await announce(ctx);
				return { id };
			},
		},

		updateLinkifier: {
			params: params({ filter_id: p.int(), ...fields }),
			async handler(ctx: Ctx<Fields & { filter_id: number }>) {
				requireAdmin(ctx);
				await updateLinkifier(db, ctx.params.filter_id, ctx.params);
				await announce(ctx);
				return {};
			},
		},

		removeLinkifier: {
			params: params({ filter_id: p.int() }),
			async handler(ctx: Ctx<{ filter_id: number }>) {
				requireAdmin(ctx);
				await removeLinkifier(db, ctx.params.filter_id);
				await announce(ctx);
				return {};
			},
		},

		reorderLinkifiers: {
			params: params({ ordered_linkifier_ids: p.intList() }),
			async handler(ctx: Ctx<{ ordered_linkifier_ids: number[] }>) {
				requireAdmin(ctx);
				if (await reorderLinkifiers(db, ctx.params.ordered_linkifier_ids)) await announce(ctx);
				return {};
			},
		},
	};
}
