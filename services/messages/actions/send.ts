// POST /messages: sending to a channel topic or a direct conversation, then the automatic follow
// or unmute of the topic. The rules live in ../send.ts and ../auto-follow.ts.
import { call, requireUser, type CheckedMessage, type ChannelTarget, type Identity, type Principal } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import { isDuplicateKey } from "../../../shared/db";
import { badRequest } from "../../../shared/errors";
import { channelRef, checkContent, checkTopic, directRefs, isChannelType, recipientsOf, storeMessage, type SendParams } from "../send";
import type { Ctx, ServiceDeps } from "./deps";


/** A would-be message's parameters, as POST /messages and the scheduling service give them. */
const messageParams = {
	type: p.oneOf(["channel", "stream", "direct", "private"]),
	to: p.either([p.int(), p.string(), p.list({ type: "any" })]),
	topic: p.string({ optional: true }),
	content: p.string(),
};

export function sendActions({ db, graphs, autoFollow, flagsForContent, announceSent }: ServiceDeps) {
	/**
	 * Every check of a would-be message, in POST /messages' order, storing nothing: content,
	 * target (the channel, which the sender must be allowed to post in, or the users), topic.
	 */
	async function prepare(ctx: Ctx<any>, actor: Identity, q: { type: string; to: unknown; topic?: string; content: string }) {
		const content = checkContent(q.content);
		const graph = await graphs().get();
		let target: { channel: ChannelTarget; topic: string } | { participants: Principal[] };
		if (isChannelType(q.type)) {
			const channel = await call(ctx, "channels.sendTarget", { channel: channelRef(q.to) });
			// "inherit" follows the organization's topics_policy.
			const policy = channel.topics_policy === "inherit" ? graph.topicsPolicy : channel.topics_policy;
			target = { channel, topic: checkTopic(q.topic, graph.emptyTopicDisplayName, policy) };
		} else {
			target = { participants: (await call(ctx, "users.resolvePrincipals", { principals: directRefs(q.to) })).users };
		}
		const recipients = recipientsOf(actor, target);
		const channelId = "channel" in target ? target.channel.channel_id : null;
		const topic = "channel" in target ? target.topic : "";
		return { content, target, recipients, channelId, topic };
	}

	return {
		/**
		 * For the scheduling service: checks a would-be message by the caller exactly as
		 * POST /messages would, without storing it, and answers it as Zulip's scheduled message
		 * objects show it (type stream or private, `to` a channel ID or the other participants'
		 * IDs, the topic as stored, the content rendered now).
		 */
		checkSend: {
			visibility: "public",
			params: params(messageParams),
			async handler(ctx: Ctx<{ type: string; to: unknown; topic?: string; content: string }>): Promise<CheckedMessage> {
				const actor = requireUser(ctx);
				const { content, recipients, channelId, topic } = await prepare(ctx, actor, ctx.params).catch(async (err: unknown) => {
					// Zulip's wording for scheduled messages names the unknown user ID.
					const ids = isChannelType(ctx.params.type) ? [] : directRefs(ctx.params.to).filter((r): r is number => typeof r === "number");
					if (!ids.length) throw err;
					const { users } = await call(ctx, "users.getMany", { user_ids: ids, client_gravatar: true, include_custom_profile_fields: false });
					const missing = ids.find((id) => !users.some((u) => u.user_id === id));
					throw missing === undefined ? err : badRequest(`Invalid user ID ${missing}`);
				});
				const { rendered } = await flagsForContent(ctx, actor, content, recipients, channelId, topic);
				if (channelId !== null) return { type: "stream", to: channelId, topic, content, rendered_content: rendered.html };
				const others = [...new Set(recipients.filter((u) => u !== actor.user_id))].sort((a, b) => a - b);
				const to = others.length ? others : [actor.user_id];
				return { type: "private", to, topic: "", content, rendered_content: rendered.html, to_self: !others.length };
			},
		},

		/**
		 * For the scheduling service: sends a message on behalf of the caller (ctx.meta.user, the
		 * scheduled message's sender), with every check and effect of POST /messages. The
		 * idempotency key makes a repeated delivery answer the message the first one stored.
		 */
		sendScheduled: {
			visibility: "public",
			params: params({ ...messageParams, read_by_sender: p.bool(), idempotency_key: p.string({ min: 1 }) }),
			async handler(ctx: Ctx<{ type: string; to: unknown; topic?: string; content: string; read_by_sender: boolean; idempotency_key: string }>) {
				const actor = requireUser(ctx);
				const q = ctx.params;
				const existing = await db.Message.findOne({ idempotency_key: q.idempotency_key }, { _id: 1 }).lean();
				if (existing) return { id: existing._id, repeated: true };
				const { content, target, recipients, channelId, topic } = await prepare(ctx, actor, q);
				const { rendered, flagsFor } = await flagsForContent(ctx, actor, content, recipients, channelId, topic);
				const starts = channelId !== null && !(await db.Message.exists({ channel_id: channelId, topic_key: topic.toLowerCase() }));
				let sent;
				try {
					sent = await storeMessage(db, actor, target, content, rendered, flagsFor, q.read_by_sender, "API", false, q.idempotency_key);
				} catch (err) {
					// A delivery that raced this one stored the message first: answer that one.
					if (!isDuplicateKey(err)) throw err;
					const first = await db.Message.findOne({ idempotency_key: q.idempotency_key }, { _id: 1 }).lean();
					if (!first) throw err;
					return { id: first._id, repeated: true };
				}
				await announceSent(ctx, sent);
				if (channelId !== null) {
					const mentioned = sent.userIds.filter((u) => u !== actor.user_id && flagsFor(u).includes("mentioned"));
					const muted = "channel" in target ? target.channel.muted_by_sender : undefined;
					const acts = [
						{ user: actor, act: starts ? ("start" as const) : ("send" as const), channelMuted: muted },
						...mentioned.map((user_id) => ({ user: { user_id }, act: "mentioned" as const })),
					];
					await autoFollow.apply(ctx, channelId, topic, acts).catch((err: unknown) => {
						ctx.service?.logger.error({ err }, "automatic topic follow failed");
					});
				}
				return { id: sent.message._id, repeated: false };
			},
		},

		send: {
			params: params({
				...messageParams,
				subject: p.string({ optional: true }),
				read_by_sender: p.bool({ optional: true }),
				queue_id: p.string({ optional: true }),
				local_id: p.string({ optional: true }),
			}),
			async handler(ctx: Ctx<SendParams & { subject?: string }>) {
				const actor: Identity = requireUser(ctx);
				const q = ctx.params;
				const { content, target, recipients, channelId, topic } = await prepare(ctx, actor, { ...q, topic: q.topic ?? q.subject });
				const { rendered, flagsFor } = await flagsForContent(ctx, actor, content, recipients, channelId, topic);
				const starts = channelId !== null && !(await db.Message.exists({ channel_id: channelId, topic_key: topic.toLowerCase() }));
				const sent = await storeMessage(db, actor, target, content, rendered, flagsFor, q.read_by_sender ?? true, "API");
				await announceSent(ctx, sent);
				if (channelId === null) return { id: sent.message._id };
				// The sender, and those mentioned, may follow or unmute the topic by their settings.
				const mentioned = sent.userIds.filter((u) => u !== actor.user_id && flagsFor(u).includes("mentioned"));
				const muted = "channel" in target ? target.channel.muted_by_sender : undefined;
				const acts = [
					{ user: actor, act: starts ? ("start" as const) : ("send" as const), channelMuted: muted },
					...mentioned.map((user_id) => ({ user: { user_id }, act: "mentioned" as const })),
				];
				const changed = await autoFollow.apply(ctx, channelId, topic, acts).catch((err: unknown) => {
					// The message is sent: a failure to follow the topic is logged, not answered.
					ctx.service?.logger.error({ err }, "automatic topic follow failed");
					return new Map<number, number>();
				});
				const policy = changed.get(actor.user_id);
				return { id: sent.message._id, ...(policy ? { automatic_new_visibility_policy: policy } : {}) };
			},
		},
	};
}
