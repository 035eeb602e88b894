// POST /messages: sending to a channel topic or a direct conversation, then the automatic follow
// or unmute of the topic. The rules live in ../send.ts and ../auto-follow.ts.
import { call, requireUser, type ChannelTarget, type Identity, type Principal } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import { channelRef, checkContent, checkTopic, directRefs, isChannelType, recipientsOf, storeMessage, type SendParams } from "../send";
import type { Ctx, ServiceDeps } from "./deps";

export function sendActions({ db, graphs, autoFollow, flagsForContent, announceSent }: ServiceDeps) {
	return {
		send: {
			params: params({
				type: p.oneOf(["channel", "stream", "direct", "private"]),
				to: p.either([p.int(), p.string(), p.list({ type: "any" })]),
				topic: p.string({ optional: true }),
				subject: p.string({ optional: true }),
				content: p.string(),
				read_by_sender: p.bool({ optional: true }),
				queue_id: p.string({ optional: true }),
				local_id: p.string({ optional: true }),
			}),
			async handler(ctx: Ctx<SendParams & { subject?: string }>) {
				const actor: Identity = requireUser(ctx);
				const q = ctx.params;
				const content = checkContent(q.content);
				const graph = await graphs().get();
				let target: { channel: ChannelTarget; topic: string } | { participants: Principal[] };
				if (isChannelType(q.type)) {
					const channel = await call(ctx, "channels.sendTarget", { channel: channelRef(q.to) });
					// "inherit" follows the organization, which allows the empty topic.
					const policy = channel.topics_policy === "inherit" ? "allow_empty_topic" : channel.topics_policy;
					target = { channel, topic: checkTopic(q.topic ?? q.subject, graph.emptyTopicDisplayName, policy) };
				} else {
					target = { participants: (await call(ctx, "users.resolvePrincipals", { principals: directRefs(q.to) })).users };
				}
				const recipients = recipientsOf(actor, target);
				const channelId = "channel" in target ? target.channel.channel_id : null;
				const topic = "channel" in target ? target.topic : "";
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
