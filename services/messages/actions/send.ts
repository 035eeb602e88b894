// POST /messages: sending to a channel topic or a direct conversation, then the automatic follow
// or unmute of the topic. The rules live in ../send-rules.ts and ../auto-follow.ts.
import { call, requireUser, type CheckedMessage, type ChannelTarget, type Identity, type Principal } from "../../../shared/actions";
import { createHash } from "node:crypto";
import { p, params } from "../../../shared/params";
import { IDENTIFIER_MAX, TOPIC_PARAM_MAX, WIDGET_CONTENT_MAX } from "../../../shared/param-bounds";
import { isDuplicateKey } from "../../../shared/db";
import { clock } from "../../../shared/clock";
import { badRequest } from "../../../shared/errors";
import { channelRef, checkContent, checkTopic, directRefs, isChannelType, recipientsOf, storeMessage, type SendParams, type Sent } from "../send-rules";
import { requestedWidget } from "../widget-checks";
import type { Ctx, ServiceDeps } from "./deps";


/** A would-be message's parameters, as POST /messages and the scheduling service give them. */
const messageParams = {
	type: p.oneOf(["channel", "stream", "direct", "private"]),
	to: p.either([p.int(), p.string(), p.list({ type: "any" })]),
	topic: p.string({ optional: true }),
	content: p.string(),
};

/**
 * The idempotency key of a POST /messages that names its client's event queue and local ID (the
 * pair Zulip's clients send for local echo): a retry with the same pair by the same user is
 * answered the first message's ID. Hashed, so client strings of any length make a short key.
 */
export function sendKey(userId: number, queueId: string | undefined, localId: string | undefined): string | undefined {
	if (queueId === undefined || localId === undefined) return undefined;
	return `send:${userId}:${createHash("sha256").update(JSON.stringify([queueId, localId])).digest("base64url")}`;
}

/**
 * The idempotency key of a POST /messages the gateway may call again after losing its answer
 * (services/api/lost-answers.ts): its request key, random per HTTP request.
 */
const requestSendKey = (requestKey: string | undefined) => (requestKey === undefined ? undefined : `request:${requestKey}`);

export function sendActions({ db, graphs, autoFollow, flagsForContent, announceSent }: ServiceDeps) {
	/** The ID of the message stored under an idempotency key, if any. */
	const sentUnder = async (key: string) => (await db.Message.findOne({ idempotency_key: key }, { _id: 1 }).lean())?._id;

	/**
	 * Stores a message under its idempotency key. When a send with the same key stored its
	 * message first (the unique index refuses the second), answers that one's ID instead.
	 */
	async function storeOnce(key: string | undefined, store: () => Promise<Sent>): Promise<Sent | { first: number }> {
		try {
			return await store();
		} catch (err) {
			const first = key !== undefined && isDuplicateKey(err) ? await sentUnder(key) : undefined;
			if (first === undefined) throw err;
			return { first };
		}
	}

	/**
	 * After a channel message, the sender and those it mentions may follow or unmute the topic by
	 * their settings; answers the new policies by user. The message is sent: a failure here is
	 * logged, not answered.
	 */
	function followTopic(ctx: Ctx<any>, actor: Identity, target: { channel: ChannelTarget; topic: string }, sent: Sent, flagsFor: (u: number) => string[], starts: boolean) {
		const mentioned = sent.userIds.filter((u) => u !== actor.user_id && flagsFor(u).includes("mentioned"));
		const acts = [
			{ user: actor, act: starts ? ("start" as const) : ("send" as const), channelMuted: target.channel.muted_by_sender },
			...mentioned.map((user_id) => ({ user: { user_id }, act: "mentioned" as const })),
		];
		return autoFollow.apply(ctx, target.channel.channel_id, target.topic, acts).catch((err: unknown) => {
			ctx.service?.logger.error({ err }, "automatic topic follow failed");
			return new Map<number, number>();
		});
	}

	/** The users a direct message goes to; a deactivated one (named by ID) is refused in Zulip's words. */
	async function directRecipients(ctx: Ctx<any>, refs: Array<number | string>): Promise<Principal[]> {
		try {
			return (await call(ctx, "users.resolvePrincipals", { principals: refs })).users;
		} catch (err) {
			const ids = refs.filter((r): r is number => typeof r === "number");
			if (!ids.length) throw err;
			const { users } = await call(ctx, "users.getMany", { user_ids: ids, client_gravatar: true, include_custom_profile_fields: false });
			const gone = ids.map((id) => users.find((u) => u.user_id === id)).find((u) => u && !u.is_active);
			throw gone ? badRequest(`'${gone.email}' is no longer using Zulip.`) : err;
		}
	}

	/**
	 * Every check of a would-be message, in POST /messages' order, storing nothing: content,
	 * target (the channel, which the sender must be allowed to post in, or the users), topic.
	 */
	async function prepare(ctx: Ctx<any>, actor: Identity, q: { type: string; to: unknown; topic?: string; content: string; skip_channel_access?: boolean }) {
		// As Zulip's Addressee.legacy_build, before anything else: a channel message names its topic
		// ("" or "(no topic)" for the empty topic, where the channel allows it).
		if (isChannelType(q.type) && q.topic === undefined) throw badRequest("Missing topic");
		const content = checkContent(q.content);
		const graph = await graphs().get();
		let target: { channel: ChannelTarget; topic: string } | { participants: Principal[] };
		if (isChannelType(q.type)) {
			const ref = channelRef(q.to);
			// Zulip's skip_stream_access_check, for an outgoing webhook bot's reply where it was mentioned.
			const channel = q.skip_channel_access && typeof ref === "number" ? await call(ctx, "channels.notificationTarget", { channel_id: ref }) : await call(ctx, "channels.sendTarget", { channel: ref });
			// "inherit" follows the organization's topics_policy.
			const policy = channel.topics_policy === "inherit" ? graph.topicsPolicy : channel.topics_policy;
			target = { channel, topic: checkTopic(q.topic, graph.emptyTopicDisplayName, policy) };
		} else {
			target = { participants: await directRecipients(ctx, directRefs(q.to)) };
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
		 * idempotency key makes a repeated delivery answer the message the first one stored;
		 * past `deliver_by` (Unix seconds) a message not yet stored is refused with Zulip's reason.
		 * The integrations service posts outgoing webhook bots' replies here too, with
		 * `skip_channel_access` (a channel by ID that the bot need not be allowed to post in).
		 */
		sendScheduled: {
			visibility: "public",
			params: params({ ...messageParams, read_by_sender: p.bool(), idempotency_key: p.string({ min: 1 }), deliver_by: p.int({ optional: true }), skip_channel_access: p.bool({ optional: true }) }),
			async handler(ctx: Ctx<{ type: string; to: unknown; topic?: string; content: string; read_by_sender: boolean; idempotency_key: string; deliver_by?: number; skip_channel_access?: boolean }>) {
				const actor = requireUser(ctx);
				const q = ctx.params;
				const existing = await sentUnder(q.idempotency_key);
				if (existing !== undefined) return { id: existing, repeated: true };
				// After the key: a message stored under it before the deadline passed was sent all the same.
				if (q.deliver_by !== undefined && clock.now() > q.deliver_by) throw badRequest("Message could not be sent at the scheduled time.");
				const { content, target, recipients, channelId, topic } = await prepare(ctx, actor, q);
				const { rendered, flagsFor } = await flagsForContent(ctx, actor, content, recipients, channelId, topic);
				const starts = channelId !== null && !(await db.Message.exists({ channel_id: channelId, topic_key: topic.toLowerCase() }));
				const sent = await storeOnce(q.idempotency_key, () => storeMessage(db, actor, target, content, rendered, flagsFor, q.read_by_sender, "API", false, q.idempotency_key));
				// A delivery that raced this one stored the message first: that one is the answer.
				if ("first" in sent) return { id: sent.first, repeated: true };
				await announceSent(ctx, sent);
				if ("channel" in target) await followTopic(ctx, actor, target, sent, flagsFor, starts);
				return { id: sent.message._id, repeated: false };
			},
		},

		send: {
			params: params({
				...messageParams,
				subject: p.string({ optional: true, max: TOPIC_PARAM_MAX }),
				read_by_sender: p.bool({ optional: true }),
				queue_id: p.string({ optional: true, max: IDENTIFIER_MAX }),
				local_id: p.string({ optional: true, max: IDENTIFIER_MAX }),
				widget_content: p.string({ optional: true, max: WIDGET_CONTENT_MAX }),
			}),
			async handler(ctx: Ctx<SendParams & { subject?: string; queue_id?: string; local_id?: string; widget_content?: string }>) {
				const actor: Identity = requireUser(ctx);
				const q = ctx.params;
				// A retry of a send that got through (its answer lost to a timeout) is answered that message:
				// the client's own retry by its queue and local IDs, the gateway's by its request key.
				const key = sendKey(actor.user_id, q.queue_id, q.local_id) ?? requestSendKey(ctx.meta.request_key);
				const existing = key === undefined ? undefined : await sentUnder(key);
				if (existing !== undefined) return { id: existing };
				const { content, target, recipients, channelId, topic } = await prepare(ctx, actor, { ...q, topic: q.topic ?? q.subject });
				// An explicit widget (a zform) takes the place of what the content asks for.
				const widget = q.widget_content === undefined ? undefined : requestedWidget(q.widget_content);
				const { rendered, flagsFor } = await flagsForContent(ctx, actor, content, recipients, channelId, topic);
				const starts = channelId !== null && !(await db.Message.exists({ channel_id: channelId, topic_key: topic.toLowerCase() }));
				const sent = await storeOnce(key, () => storeMessage(db, actor, target, content, rendered, flagsFor, q.read_by_sender ?? true, ctx.meta.client ?? "API", false, key, widget));
				if ("first" in sent) return { id: sent.first };
				// The sender's queue named by queue_id gets local_message_id, for Zulip's local echo.
				await announceSent(ctx, sent, q.queue_id === undefined || q.local_id === undefined ? undefined : { sender_queue_id: q.queue_id, local_id: q.local_id });
				if (!("channel" in target)) return { id: sent.message._id };
				const policy = (await followTopic(ctx, actor, target, sent, flagsFor, starts)).get(actor.user_id);
				return { id: sent.message._id, ...(policy ? { automatic_new_visibility_policy: policy } : {}) };
			},
		},
	};
}
