// For the moderation service: a message as a report quotes it (the caller must be able to read
// it). The report itself is posted by `sendNotice` (bot-messages.ts).
import { requireUser, type ReportedMessage } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import type { Ctx, ServiceDeps } from "./deps";

export function moderationSupportActions({ accessibleMessage }: ServiceDeps) {
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
	};
}
