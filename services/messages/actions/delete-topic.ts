// POST /streams/{stream_id}/delete_topic: a topic's messages deleted a batch per request, with
// Zulip's `complete` flag; once complete, the users' policies for the topic are cleared in the
// channels service. The rules live in ../delete-topic.ts.
import { call, requireUser } from "../../../shared/actions";
import { adminRequired } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { TOPIC_PARAM_MAX } from "../../../shared/param-bounds";
import { isAdmin } from "../../../shared/roles";
import { topicFromClient } from "../../../shared/topics";
import { checkTopicChannel, deleteTopicBatch, stalePolicyUsers } from "../delete-topic";
import { announceDeletion } from "../announce-deletion";
import type { Ctx, ServiceDeps } from "./deps";

export function deleteTopicActions({ db, resolvers, permissionsIn }: ServiceDeps) {
	// permissionsIn: the channel exists ("Invalid channel ID" otherwise) and whether it is archived;
	// readable: content access and whether its history is open to subscribers.
	return {
		deleteTopic: {
			params: params({ stream_id: p.int({ min: 0 }), topic_name: p.string({ max: TOPIC_PARAM_MAX }) }),
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
				const topic = topicFromClient(ctx.params.topic_name, emptyName);
				const { deleted, complete } = await deleteTopicBatch(db, actor, channel, topic, emptyName);
				if (deleted) await announceDeletion(ctx, db, deleted);
				if (complete) {
					// The topic is gone (Zulip's delete_in_topic): its policies go, with the topic as named here.
					const { user_ids } = await call(ctx, "channels.topicPolicyUsers", { channel_id: channel.channel_id, topic });
					const stale = await stalePolicyUsers(db, channel, topic, user_ids);
					if (stale.length) await call(ctx, "channels.clearTopicPolicies", { channel_id: channel.channel_id, topic, user_ids: stale });
				}
				return { complete };
			},
		},
	};
}
