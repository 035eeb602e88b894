// POST /typing: a user starts or stops composing to a direct conversation or a channel topic.
// Nothing is stored; the request is checked as Zulip checks it (zerver/views/typing.py) and
// announced as `messages.typing` with Zulip's typing event and the users whose clients get it:
// the conversation's other participants, or the channel's subscribers, whose
// receives_typing_notifications setting is on (one users.settingsOf call per request).
import { Errors } from "moleculer";
import { call, requireUser, type Identity } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { TOPIC_PARAM_MAX } from "../../../shared/param-bounds";
import { topicForClient, topicFromClient } from "../../../shared/topics";
import type { Ctx, ServiceDeps } from "./deps";

interface TypingParams {
	type?: "direct" | "private" | "stream" | "channel";
	op: "start" | "stop";
	to?: number[];
	stream_id?: number;
	topic?: string;
}

const SETTINGS = ["receives_typing_notifications", "send_private_typing_notifications", "send_stream_typing_notifications"];

const disabled = (kind: "direct" | "channel") => badRequest(`User has disabled typing notifications for ${kind} messages`);

export function typingActions({ graphs }: ServiceDeps) {
	/** The users' typing settings, the sender's among them: one call. */
	const settingsOf = async (ctx: Ctx<any>, userIds: number[]) => (await call(ctx, "users.settingsOf", { user_ids: userIds, names: SETTINGS })).values;

	/** Those of `userIds`, other than the sender, who receive typing notifications. */
	const receivers = (values: Record<string, Record<string, unknown>>, userIds: number[], sender: Identity) =>
		userIds.filter((u) => u !== sender.user_id && values[String(u)]?.receives_typing_notifications === true);

	return {
		typing: {
			params: params({
				// "private" is the older name of "direct", "channel" the newer one of "stream".
				type: p.oneOf(["direct", "private", "stream", "channel"], { optional: true }),
				op: p.oneOf(["start", "stop"]),
				to: p.intList({ optional: true }),
				stream_id: p.int({ optional: true }),
				topic: p.string({ optional: true, max: TOPIC_PARAM_MAX }),
			}),
			async handler(ctx: Ctx<TypingParams>) {
				const actor = requireUser(ctx);
				const q = ctx.params;
				const sender = { user_id: actor.user_id, email: actor.email };
				if (q.type === "stream" || q.type === "channel") {
					if (q.stream_id === undefined) throw badRequest("Missing 'stream_id' argument");
					if (q.topic === undefined) throw badRequest("Missing topic");
					// Access and permission to post, and the subscribers, in one call.
					let subscribers: number[];
					try {
						subscribers = (await call(ctx, "channels.sendTarget", { channel: q.stream_id })).subscribers;
					} catch (err) {
						// Zulip checks the sender's setting first: its error wins over the channel's.
						if (err instanceof Errors.MoleculerClientError && (await settingsOf(ctx, [actor.user_id]))[String(actor.user_id)]?.send_stream_typing_notifications === false) {
							throw disabled("channel");
						}
						if (err instanceof Errors.MoleculerClientError && err.type === "STREAM_DOES_NOT_EXIST") throw badRequest("Invalid channel ID");
						throw err;
					}
					const values = await settingsOf(ctx, [...new Set([...subscribers, actor.user_id])]);
					if (values[String(actor.user_id)]?.send_stream_typing_notifications === false) throw disabled("channel");
					const emptyTopicName = (await graphs().get()).emptyTopicDisplayName;
					const topic = topicForClient(topicFromClient(q.topic, emptyTopicName), false, emptyTopicName);
					const event = { op: q.op, message_type: "stream", sender, stream_id: q.stream_id, topic };
					await ctx.broadcast("messages.typing", { event, user_ids: receivers(values, subscribers, actor) });
					return {};
				}

				if (q.to === undefined) throw badRequest("Missing 'to' argument");
				if (!q.to.length) throw badRequest("Empty 'to' list");
				// The sender is always among the recipients, as in Zulip's event.
				const ids = [...new Set([...q.to, actor.user_id])];
				const [{ users }, values] = await Promise.all([call(ctx, "users.getMany", { user_ids: ids, include_custom_profile_fields: false }), settingsOf(ctx, ids)]);
				if (values[String(actor.user_id)]?.send_private_typing_notifications === false) throw disabled("direct");
				const found = new Map(users.map((u) => [u.user_id, u]));
				const unknown = ids.find((id) => !found.has(id));
				if (unknown !== undefined) throw badRequest(`Invalid user ID ${unknown}`);
				const recipients = ids.map((id) => ({ user_id: id, email: found.get(id)!.email }));
				const active = ids.filter((id) => found.get(id)!.is_active);
				const event = { op: q.op, message_type: "direct", sender, recipients };
				await ctx.broadcast("messages.typing", { event, user_ids: receivers(values, active, actor) });
				return {};
			},
		},
	};
}
