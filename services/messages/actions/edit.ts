// PATCH and DELETE /messages/{message_id} and GET /messages/{message_id}/history: editing
// content, moving messages between topics and channels (with Notification Bot's notices), deleting,
// and the edit history. The rules live in ../edit.ts, ../move-notices.ts and ../history.ts.
import { call, requireUser } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { topicForClient } from "../../../shared/topics";
import { recipientId } from "../db";
import { clock } from "../../../shared/clock";
import { applyContentEdit, applyMove, checkContentEdit, checkDelete, checkMove, deleteMessages, moveRecord, type MoveTarget, type PropagateMode } from "../edit";
import { messageHistory } from "../history";
import { announceMove } from "../move-notices";
import type { Ctx, ServiceDeps } from "./deps";

export function editActions({ db, graphs, accessibleMessage, permissionsIn, flagsForContent, noticeDeps }: ServiceDeps) {
	return {
		update: {
			params: params({
				message_id: p.int(),
				content: p.string({ optional: true }),
				topic: p.string({ optional: true }),
				subject: p.string({ optional: true }),
				stream_id: p.int({ optional: true }),
				propagate_mode: p.oneOf(["change_one", "change_later", "change_all"], { optional: true }),
				send_notification_to_old_thread: p.bool({ optional: true }),
				send_notification_to_new_thread: p.bool({ optional: true }),
			}),
			async handler(
				ctx: Ctx<{
					message_id: number;
					content?: string;
					topic?: string;
					subject?: string;
					stream_id?: number;
					propagate_mode?: PropagateMode;
					send_notification_to_old_thread?: boolean;
					send_notification_to_new_thread?: boolean;
				}>,
			) {
				const actor = requireUser(ctx);
				const q = ctx.params;
				const rawTopic = q.topic ?? q.subject;
				if (q.content === undefined && rawTopic === undefined && q.stream_id === undefined) throw badRequest("Nothing to change");
				const m = await accessibleMessage(ctx, actor, q.message_id);
				// As Zulip (validate_message_edit_payload): content moves with a topic, not a channel.
				if (q.stream_id !== undefined && q.content !== undefined) throw badRequest("Cannot change message content while changing channel");
				const graph = await graphs().get();

				// Check everything first.
				const content = q.content !== undefined ? checkContentEdit(graph, actor, m, q.content) : undefined;
				let move: { topic: string; target: MoveTarget | null } | undefined;
				if (rawTopic !== undefined || (q.stream_id !== undefined && q.stream_id !== m.channel_id)) {
					if (m.type !== "stream") throw badRequest("Direct messages cannot be moved to a topic or channel.");
					const source = await permissionsIn(ctx, m.channel_id!);
					const movingChannel = q.stream_id !== undefined && q.stream_id !== m.channel_id;
					const targetPerms = movingChannel ? await permissionsIn(ctx, q.stream_id!) : null;
					const topic = checkMove(graph, actor, m, source, targetPerms, rawTopic);
					let target = null;
					if (movingChannel) {
						const dest = await call(ctx, "channels.sendTarget", { channel: q.stream_id! });
						target = {
							channel_id: dest.channel_id,
							recipient_id: await recipientId(db, `channel:${dest.channel_id}`),
							keepUsers: dest.history_public_to_subscribers ? null : new Set(dest.subscribers),
						};
					}
					move = { topic, target };
				}

				// One request, one history record per message: a content edit that also moves the
				// message records the move in the same entry.
				const now = clock.now();
				const moving = move && (move.topic !== m.topic || move.target) ? move : undefined;
				const editing = content !== undefined && content !== m.content;
				if (editing) {
					const recipients = (await db.UserMessage.find({ message_id: m._id }, { user_id: 1 }).lean()).map((r) => r.user_id);
					const { rendered, flagsFor } = await flagsForContent(ctx, actor, content, recipients, m.channel_id, m.topic);
					await applyContentEdit(db, actor, m, content, rendered, flagsFor, now, moving ? moveRecord(m, moving.topic, moving.target) : {});
				}
				if (moving) {
					const propagate = q.propagate_mode ?? "change_one";
					const moved = await applyMove(db, actor, m, moving.topic, moving.target, propagate, now, editing);
					const to = { channel_id: moving.target?.channel_id ?? m.channel_id!, topic: moving.topic };
					await ctx.broadcast("messages.moved", { message_ids: moved, ...to });
					// The move is done: a failure to post its notices is logged, not answered.
					await announceMove(noticeDeps(ctx), {
						actor,
						from: { channel_id: m.channel_id!, topic: m.topic },
						to,
						moved,
						propagate,
						editedContent: q.content !== undefined,
						notifyOld: q.send_notification_to_old_thread ?? false,
						notifyNew: q.send_notification_to_new_thread ?? true,
					}).catch((err: unknown) => ctx.service?.logger.error({ err }, "move notices failed"));
				}
				return {};
			},
		},

		delete: {
			params: params({ message_id: p.int() }),
			async handler(ctx: Ctx<{ message_id: number }>) {
				const actor = requireUser(ctx);
				const m = await accessibleMessage(ctx, actor, ctx.params.message_id);
				checkDelete(await graphs().get(), actor, m, m.channel_id ? await permissionsIn(ctx, m.channel_id) : null);
				await deleteMessages(db, [m._id]);
				await ctx.broadcast("messages.deleted", { message_ids: [m._id], channel_id: m.channel_id ?? undefined });
				return {};
			},
		},

		history: {
			params: params({ message_id: p.int(), allow_empty_topic_name: p.bool({ optional: true }) }),
			async handler(ctx: Ctx<{ message_id: number; allow_empty_topic_name?: boolean }>) {
				const actor = requireUser(ctx);
				const m = await accessibleMessage(ctx, actor, ctx.params.message_id);
				const graph = await graphs().get();
				if (graph.messaging.edit_history_visibility === "none") throw badRequest("Message edit history is disabled in this organization");
				const show = (t: string) => (m.type === "stream" ? topicForClient(t, !!ctx.params.allow_empty_topic_name, graph.emptyTopicDisplayName) : t);
				return { message_history: messageHistory(m, show) };
			},
		},

	};
}
