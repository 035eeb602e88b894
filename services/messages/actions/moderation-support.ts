// For the moderation service: a message as a report quotes it (the caller must be able to read
// it), and a notice posted by Notification Bot into a channel topic (the report itself).
import { requireUser, type ReportedMessage } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import type { Ctx, ServiceDeps } from "./deps";

export function moderationSupportActions({ accessibleMessage, noticeDeps }: ServiceDeps) {
	return {
		reportTarget: {
			visibility: "public",
			params: params({ message_id: p.int() }),
			async handler(ctx: Ctx<{ message_id: number }>): Promise<ReportedMessage> {
				const m = await accessibleMessage(ctx, requireUser(ctx), ctx.params.message_id);
				return {
					message_id: m._id,
					sender_id: m.sender_id,
					type: m.type,
					channel_id: m.channel_id,
					topic: m.topic,
					content: m.content,
					timestamp: m.timestamp,
					dm_user_ids: m.dm_user_ids,
				};
			},
		},

		/** Posts as Notification Bot; the caller has chosen the channel and topic and checked them. */
		sendNotice: {
			visibility: "public",
			params: params({ channel_id: p.int(), topic: p.string(), content: p.string() }),
			async handler(ctx: Ctx<{ channel_id: number; topic: string; content: string }>) {
				const { channel_id, topic, content } = ctx.params;
				return { id: await noticeDeps(ctx).post(channel_id, topic, content) };
			},
		},
	};
}
