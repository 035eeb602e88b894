// POST /streams/{stream_id}/delete_topic: a topic's messages deleted a batch per request, with
// Zulip's `complete` flag. The rules live in ../delete-topic.ts.
import { requireUser } from "../../../shared/actions";
import { adminRequired } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { isAdmin } from "../../../shared/roles";
import { topicFromClient } from "../../../shared/topics";
import { checkTopicChannel, deleteTopicBatch } from "../delete-topic";
import type { Ctx, ServiceDeps } from "./deps";

export function deleteTopicActions({ db, resolvers, permissionsIn }: ServiceDeps) {
	// permissionsIn: the channel exists ("Invalid channel ID" otherwise) and whether it is archived;
	// readable: content access and whether its history is open to subscribers.
	return {
		deleteTopic: {
			params: params({ stream_id: p.int({ min: 0 }), topic_name: p.string() }),
			async handler(ctx: Ctx<{ stream_id: number; topic_name: string }>) {
				const actor = requireUser(ctx);
				if (!isAdmin(actor.role)) throw adminRequired();
				const r = resolvers(ctx);
				const perms = await permissionsIn(ctx, ctx.params.stream_id);
				const [readable] = await r.readable([ctx.params.stream_id]);
				const channel = checkTopicChannel({
					channel_id: ctx.params.stream_id,
					content_access: !!readable,
					is_archived: perms.is_archived,
					history_public_to_subscribers: readable?.history_public_to_subscribers ?? false,
				});
				const emptyName = await r.emptyTopicName();
				const { deleted, complete } = await deleteTopicBatch(db, actor, channel, topicFromClient(ctx.params.topic_name, emptyName), emptyName);
				if (deleted) await ctx.broadcast("messages.deleted", deleted);
				return { complete };
			},
		},
	};
}
