// POST and DELETE /messages/{message_id}/reactions. Each change is announced as
// messages.reactionChanged for the clients of everyone who can see the message. Reacting counts
// as taking part in the topic for the automatic follow and unmute settings (auto-follow.ts).
import { requireUser, type Identity } from "../../../shared/actions";
import { isDuplicateKey } from "../../../shared/db";
import { p, params } from "../../../shared/params";
import { NAME_MAX } from "../../../shared/param-bounds";
import { checkAccess } from "../access";
import { addHistoricalRows } from "../flag-rules";
import { checkEmoji, invalidEmojiCode, isKnownCode, reactionExists, reactionMissing, REACTION_TYPES, requestedEmoji, type EmojiRequest } from "../reaction-rules";
import { loadedRealmEmoji } from "../realm-emoji-cache";
import type { Ctx, ServiceDeps } from "./deps";

type ReactionParams = EmojiRequest & { message_id: number };

const emojiParams = { emoji_code: p.string({ optional: true, max: NAME_MAX }), reaction_type: p.oneOf(REACTION_TYPES, { optional: true }) };

/** The deprecated `user` object Zulip's reaction events still carry beside user_id. */
const reactor = (actor: Identity) => ({ user_id: actor.user_id, email: actor.email, full_name: actor.full_name });

export function reactionActions({ db, resolvers, autoFollow }: ServiceDeps) {
	/** Everyone who has the message: whose clients hear of its reactions. */
	const holders = async (messageId: number): Promise<number[]> => db.UserMessage.distinct("user_id", { message_id: messageId });

	return {
		addReaction: {
			params: params({ message_id: p.int(), emoji_name: p.string({ max: NAME_MAX }), ...emojiParams }),
			async handler(ctx: Ctx<ReactionParams>) {
				const actor = requireUser(ctx);
				const { message_id } = ctx.params;
				const access = await checkAccess(db, actor.user_id, [message_id], resolvers(ctx).readable);
				const custom = await loadedRealmEmoji(ctx);
				const emoji = requestedEmoji(ctx.params, custom);
				const same = { message_id, reaction_type: emoji.reaction_type, emoji_code: emoji.emoji_code };
				const existing = await db.Reaction.find(same, { user_id: 1, emoji_name: 1 }).sort({ _id: 1 }).lean();
				if (existing.some((r) => r.user_id === actor.user_id)) throw reactionExists();
				// Someone reacted with this emoji already (perhaps under an older name): join theirs.
				if (existing.length) emoji.emoji_name = existing[0].emoji_name;
				else checkEmoji(emoji, custom);
				// Reacting to a message seen through channel history makes it part of the user's history.
				await addHistoricalRows(db, actor.user_id, access.unreceived);
				// The flag goes before the reaction is stored: a page never skips a stored reaction.
				await db.Message.updateOne({ _id: message_id, no_reactions: true }, { $unset: { no_reactions: 1 } });
				try {
					await db.Reaction.create({ _id: await db.nextId("reaction"), user_id: actor.user_id, ...same, emoji_name: emoji.emoji_name });
				} catch (err) {
					if (isDuplicateKey(err)) throw reactionExists();
					throw err;
				}
				await ctx.broadcast("messages.reactionChanged", { op: "add", user_id: actor.user_id, user: reactor(actor), ...same, emoji_name: emoji.emoji_name, user_ids: await holders(message_id) });
				// Reacting is taking part in the topic, which may follow or unmute it for the user.
				const m = access.unreceived[0] ?? (await db.Message.findById(message_id, { channel_id: 1, topic: 1 }).lean());
				if (m?.channel_id != null) {
					// The reaction is stored: a failure to follow the topic is logged, not answered.
					await autoFollow.apply(ctx, m.channel_id, m.topic, [{ user: actor, act: "react" }]).catch((err: unknown) => ctx.service?.logger.error({ err }, "automatic topic follow failed"));
				}
				return {};
			},
		},

		removeReaction: {
			params: params({ message_id: p.int(), emoji_name: p.string({ optional: true, max: NAME_MAX }), ...emojiParams }),
			async handler(ctx: Ctx<ReactionParams>) {
				const actor = requireUser(ctx);
				const { message_id } = ctx.params;
				await checkAccess(db, actor.user_id, [message_id], resolvers(ctx).readable);
				const custom = await loadedRealmEmoji(ctx);
				const emoji = requestedEmoji(ctx.params, custom);
				const same = { message_id, reaction_type: emoji.reaction_type, emoji_code: emoji.emoji_code };
				const removed = await db.Reaction.findOneAndDelete({ ...same, user_id: actor.user_id }).lean();
				if (!removed) throw isKnownCode(emoji, custom) ? reactionMissing() : invalidEmojiCode();
				await ctx.broadcast("messages.reactionChanged", { op: "remove", user_id: actor.user_id, user: reactor(actor), ...same, emoji_name: removed.emoji_name, user_ids: await holders(message_id) });
				return {};
			},
		},
	};
}
