// PATCH and DELETE /messages/{message_id} and GET /messages/{message_id}/history: editing
// content, moving messages between topics and channels (with Notification Bot's notices), deleting,
// and the edit history. The rules live in ../edit-rules.ts, ../move-notices.ts and ../history.ts.
import { call, requireUser, type Identity } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { TOPIC_PARAM_MAX } from "../../../shared/param-bounds";
import { topicForClient } from "../../../shared/topics";
import { recipientId } from "../db";
import { clock } from "../../../shared/clock";
import { announceDeletion } from "../announce-deletion";
import { applyContentEdit, applyMove, checkContentEdit, checkDelete, checkMove, deletedPayload, deleteMessages, holdersOf, MENTION_FLAGS, moveRecord, type MoveTarget, type PropagateMode } from "../edit-rules";
import type { Rendered } from "../../../shared/markdown/render";
import { topicLinks } from "../../../shared/markdown/topic-links";
import { apiFlags } from "../message-view";
import type { MessageDoc } from "../models/message";
import { messageHistory } from "../history";
import { announceMove } from "../move-notices";
import { claimUploads, publicityOf, type Publicity } from "../attachment-claims";
import type { Ctx, GetParams, ServiceDeps } from "./deps";

/** What one edit request changed: the content (and who had a mention flag before), and the messages it moved (with who lost them). */
interface Change {
	content?: { content: string; rendered: Rendered; priorMentioned: ReadonlySet<number> };
	moved?: { topic: string; target: MoveTarget | null; ids: number[]; lost: number[]; propagate: PropagateMode };
}

const hasMention = (flags: readonly string[]) => flags.some((f) => MENTION_FLAGS.includes(f));

export function editActions({ db, graphs, accessibleMessage, permissionsIn, flagsForContent, noticeDeps, views, externalUrl }: ServiceDeps) {
	/**
	 * What the notifications service reads to notify the users a content edit newly mentions
	 * (Zulip's process_message_update_event): the users with a mention flag now who had none before
	 * the edit (Zulip's prior_mention_user_ids rule, applied here so only they are named), and the
	 * message in message.sent's shape, as the API shows it now. None when nobody is newly mentioned.
	 */
	async function newMentions(ctx: Ctx<any>, m: MessageDoc, flags: Record<string, string[]>, prior: ReadonlySet<number>) {
		const user_ids = Object.entries(flags).flatMap(([u, f]) => (hasMention(f) && !prior.has(Number(u)) ? [Number(u)] : []));
		const now = user_ids.length ? await db.Message.findById(m._id).lean() : null;
		if (!now) return undefined;
		const [message] = await views(ctx, [now], new Map([[now._id, []]]), { apply_markdown: true, client_gravatar: false, allow_empty_topic_name: false } as GetParams);
		delete message.flags;
		const theirs = Object.fromEntries(user_ids.map((u) => [String(u), flags[String(u)]]));
		return { message_id: now._id, channel_id: now.channel_id ?? undefined, topic: now.topic, sender_id: now.sender_id, user_ids, event: { message, content: now.content, flags: theirs } };
	}

	/**
	 * `messages.updated`: Zulip's update_message event for an edit (topics as clients without the
	 * empty-topic capability see them), who hears of it with each one's flags for the edited
	 * message, and the delete_message that those who lost the messages in a channel move get.
	 */
	async function updatedPayload(ctx: Ctx<any>, actor: Identity, m: MessageDoc, now: number, change: Change, emptyTopicName: string) {
		const shown = (t: string) => topicForClient(t, false, emptyTopicName);
		const event: Record<string, unknown> = { user_id: actor.user_id, edit_timestamp: now, message_id: m._id, rendering_only: false };
		const { content, moved } = change;
		if (content) {
			Object.assign(event, {
				orig_content: m.content,
				orig_rendered_content: m.rendered_content,
				content: content.content,
				rendered_content: content.rendered.html,
				is_me_message: content.rendered.isMeMessage,
			});
		}
		if (m.type === "stream") {
			const { names } = await call(ctx, "channels.names", { channel_ids: [m.channel_id!] });
			Object.assign(event, { stream_name: names[String(m.channel_id)], stream_id: m.channel_id });
		}
		if (moved) {
			event.propagate_mode = moved.propagate;
			if (moved.target) Object.assign(event, { orig_subject: shown(m.topic), new_stream_id: moved.target.channel_id });
			if (moved.topic !== m.topic) Object.assign(event, { orig_subject: shown(m.topic), subject: shown(moved.topic), topic_links: topicLinks(moved.topic) });
		}
		const ids = moved ? [...moved.ids].sort((a, b) => a - b) : [m._id];
		event.message_ids = ids;
		// Everyone who has any of the messages now, and the editor; flags are each one's for the
		// edited message (["read"] for those without a row for it, as Zulip gives subscribers).
		const rows = await db.UserMessage.find({ message_id: m._id }, { user_id: 1, flags: 1 }).lean();
		const flags: Record<string, string[]> = Object.fromEntries(rows.map((r) => [String(r.user_id), apiFlags(r.flags)]));
		const users = new Set([...rows.map((r) => r.user_id), ...(ids.length > 1 ? await holdersOf(db, ids) : []), actor.user_id]);
		const lost = moved?.lost.length ? { user_ids: moved.lost, message_ids: ids, message_type: "stream", stream_id: m.channel_id!, topic: shown(m.topic) } : undefined;
		const new_mentions = content ? await newMentions(ctx, m, flags, content.priorMentioned) : undefined;
		// Those mentioned before the edit and not by name or group now: their push notification is
		// taken away (Zulip's do_update_mobile_push_notification, which compares against
		// mentions_user_ids, so a wildcard left in the message does not count).
		const unmentioned = content ? [...content.priorMentioned].filter((u) => !flags[String(u)]?.includes("mentioned")) : [];
		const mentions_dropped = unmentioned.length ? { message_id: m._id, channel_id: m.channel_id ?? undefined, topic: moved?.topic ?? m.topic, sender_id: m.sender_id, user_ids: unmentioned } : undefined;
		return { message_ids: ids, user_ids: [...users].sort((a, b) => a - b), flags, event, lost, new_mentions, mentions_dropped };
	}

	/** Files the moved messages link take their new channel's publicity (one call, when any links one). */
	async function uploadsMoved(ctx: Ctx<any>, ids: number[], channelId: number, publicity: Publicity) {
		const linking = (await db.Message.find({ _id: { $in: ids }, has_attachment: true }, { _id: 1 }).lean()).map((x) => x._id);
		if (!linking.length) return;
		await call(ctx, "uploads.messagesMoved", { message_ids: linking, channel_id: channelId, ...publicity }).catch((err: unknown) => ctx.service?.logger.error({ err }, "moving uploads' claims failed"));
	}

	return {
		update: {
			params: params({
				message_id: p.int(),
				content: p.string({ optional: true }),
				topic: p.string({ optional: true }),
				subject: p.string({ optional: true, max: TOPIC_PARAM_MAX }),
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
				// Zulip's is_widget_message: a message with submessages keeps its content.
				if (q.content !== undefined && m.has_submessages && (await db.Submessage.exists({ message_id: m._id }))) throw badRequest("Widgets cannot be edited.");
				const graph = await graphs().get();

				// Check everything first.
				const content = q.content !== undefined ? checkContentEdit(graph, actor, m, q.content) : undefined;
				let move: { topic: string; target: MoveTarget | null } | undefined;
				let destPublicity: Publicity | undefined;
				if (rawTopic !== undefined || (q.stream_id !== undefined && q.stream_id !== m.channel_id)) {
					if (m.type !== "stream") throw badRequest("Direct messages cannot be moved to a topic or channel.");
					const source = await permissionsIn(ctx, m.channel_id!);
					const movingChannel = q.stream_id !== undefined && q.stream_id !== m.channel_id;
					const targetPerms = movingChannel ? await permissionsIn(ctx, q.stream_id!) : null;
					const topic = checkMove(graph, actor, m, source, targetPerms, rawTopic);
					let target = null;
					if (movingChannel) {
						const dest = await call(ctx, "channels.sendTarget", { channel: q.stream_id! });
						destPublicity = publicityOf(dest);
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
				let rendered: Rendered | undefined;
				let priorMentioned: ReadonlySet<number> = new Set();
				if (editing) {
					const before = await db.UserMessage.find({ message_id: m._id }, { user_id: 1, flags: 1 }).lean();
					const recipients = before.map((r) => r.user_id);
					// Zulip's get_mentions_for_message_updates: rows of those who received the message (not historical ones).
					priorMentioned = new Set(before.filter((r) => hasMention(r.flags) && !r.flags.includes("historical")).map((r) => r.user_id));
					const edited = await flagsForContent(ctx, actor, content, recipients, m.channel_id, m.topic, { edit: true });
					rendered = edited.rendered;
					await applyContentEdit(db, actor, m, content, rendered, edited.flagsFor, now, moving ? moveRecord(m, moving.topic, moving.target) : {});
					// Zulip's check_attachment_reference_change: uploads linked anew are claimed, those no longer linked dropped.
					const publicity = async () => publicityOf(await call(ctx, "channels.notificationTarget", { channel_id: m.channel_id! }));
					await claimUploads(ctx, db, externalUrl, {
						message: m,
						sender: actor,
						html: rendered.html,
						stored: rendered.has.has_attachment,
						before: { html: m.rendered_content, has_attachment: m.has_attachment },
						publicity,
					});
				}
				let moved: { ids: number[]; lost: number[] } | undefined;
				if (moving) moved = await applyMove(db, actor, m, moving.topic, moving.target, q.propagate_mode ?? "change_one", now, editing);
				if (moved && moving?.target && destPublicity) await uploadsMoved(ctx, moved.ids, moving.target.channel_id, destPublicity);
				if (editing || moved) {
					const change = { content: editing ? { content: content!, rendered: rendered!, priorMentioned } : undefined, moved: moving && moved ? { ...moving, ...moved, propagate: q.propagate_mode ?? "change_one" } : undefined };
					await ctx.broadcast("messages.updated", await updatedPayload(ctx, actor, m, now, change, graph.emptyTopicDisplayName));
				}
				if (moving && moved) {
					const propagate = q.propagate_mode ?? "change_one";
					const to = { channel_id: moving.target?.channel_id ?? m.channel_id!, topic: moving.topic };
					await ctx.broadcast("messages.moved", { message_ids: moved.ids, ...to });
					// The move is done: a failure to post its notices is logged, not answered.
					await announceMove(noticeDeps(ctx), {
						actor,
						from: { channel_id: m.channel_id!, topic: m.topic },
						to,
						moved: moved.ids,
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
				const graph = await graphs().get();
				checkDelete(graph, actor, m, m.channel_id ? await permissionsIn(ctx, m.channel_id) : null);
				const deleted = await deletedPayload(db, m, actor.user_id, graph.emptyTopicDisplayName);
				await deleteMessages(db, [m._id]);
				await announceDeletion(ctx, db, deleted);
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
