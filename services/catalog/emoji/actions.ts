// GET /realm/emoji, DELETE /realm/emoji/{emoji_name} (deactivates), and the catalog service's side
// of POST /realm/emoji/{emoji_name}, whose images the uploads service stores
// (services/uploads/actions/emoji-images.ts): the checks before the body is read, then the emoji.
// Each change broadcasts the whole list (catalog.realmEmojiChanged): Zulip's `realm_emoji` update
// event, and the messages service's cache for reactions and rendering. Rules: custom-emoji.ts.
import { requireUser, type Identity } from "../../../shared/actions";
import type { RealmEmojiChanged } from "../../../shared/org-events";
import { p, params } from "../../../shared/params";
import { checkEmojiUpload, customEmoji, removableEmoji } from "./custom-emoji";
import { activeUserIds, type Ctx, type ServiceDeps } from "../deps";

export function realmEmojiActions(deps: ServiceDeps) {
	const { db } = deps;
	async function announce(ctx: Ctx<unknown>) {
		const [realm_emoji, user_ids] = await Promise.all([customEmoji(db), activeUserIds(deps)]);
		await ctx.broadcast("catalog.realmEmojiChanged", { realm_id: db.realmId, user_ids, realm_emoji } satisfies RealmEmojiChanged);
	}
	const check = async (actor: Identity, name: string) => checkEmojiUpload(db, await deps.graphs.get(), actor, name);

	return {
		/** GET /realm/emoji; also the messages service's cache (refreshed by catalog.realmEmojiChanged). */
		realmEmoji: {
			params: params({}),
			async handler() {
				// As Zulip: the list is public to the organization.
				return { emoji: await customEmoji(db) };
			},
		},

		checkEmojiUpload: {
			visibility: "public",
			params: params({ emoji_name: p.string({ max: 1000 }) }),
			async handler(ctx: Ctx<{ emoji_name: string }>) {
				return { emoji_name: await check(requireUser(ctx), ctx.params.emoji_name) };
			},
		},

		addEmoji: {
			visibility: "public",
			params: params({ emoji_name: p.string({ max: 1000 }), file_name: p.string({ max: 100 }), is_animated: p.bool() }),
			async handler(ctx: Ctx<{ emoji_name: string; file_name: string; is_animated: boolean }>) {
				const actor = requireUser(ctx);
				// Checked again: the name may have been taken, or the permission lost, while the image arrived.
				const name = await check(actor, ctx.params.emoji_name);
				const id = await db.nextId("realm_emoji");
				await db.RealmEmoji.create({ _id: id, realm_id: db.realmId, name, author_id: actor.user_id, file_name: ctx.params.file_name, is_animated: ctx.params.is_animated, deactivated: false });
				await announce(ctx);
				return { id };
			},
		},

		deleteEmoji: {
			params: params({ emoji_name: p.string({ max: 1000 }) }),
			async handler(ctx: Ctx<{ emoji_name: string }>) {
				const emoji = await removableEmoji(db, requireUser(ctx), ctx.params.emoji_name);
				await db.RealmEmoji.updateOne({ _id: emoji._id }, { $set: { deactivated: true } });
				await announce(ctx);
				return {};
			},
		},
	};
}
