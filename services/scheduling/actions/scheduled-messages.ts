// GET, POST /scheduled_messages, PATCH and DELETE /scheduled_messages/{scheduled_message_id}.
// The message itself (target, permission to post, topic, content) is checked by the messages
// service's own rules (messages.checkSend), as the sender, as if sent now. Every change is
// announced as scheduling.changed (op add, update or remove, Zulip's scheduled_messages events).
import type { Model } from "mongoose";
import { call, requireUser, type Ctx, type RegisterStateParams } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { uploadPathIds } from "../../../shared/markdown/upload-links";
import type { ScheduledMessageDoc } from "../models/scheduled-message";
import { alreadySent, bySchedule, canonicalType, channelIdOf, checkDeliveryTime, defaultReadBySender, LISTED, scheduledMissing, scheduledView, userIdsOf, wouldBe } from "../scheduled-message-rules";

export interface SchedulingDeps {
	ScheduledMessage: Model<ScheduledMessageDoc>;
	/** The server's own URL: links to it are local (the uploads a message links). */
	externalUrl: string;
	nextId: (entity: string) => Promise<number>;
	announce(userId: number, change: Record<string, unknown>): Promise<void>;
}

/** Latest UNIX second a timestamp may name (the last of year 9999). */
const MAX_TIMESTAMP = 253_402_300_799;

const TYPES = ["direct", "channel", "stream", "private"];
const toParam = p.either([p.int(), p.string(), p.list({ type: "any" })]);

interface CreateParams {
	type: string;
	to: unknown;
	topic?: string;
	content: string;
	scheduled_delivery_timestamp: number;
	read_by_sender?: boolean;
}

type EditParams = Partial<Omit<CreateParams, "read_by_sender">> & { scheduled_message_id: number };

export function scheduledMessageActions(d: SchedulingDeps) {
	// Read through `d` at each call: the model exists once the service has started.
	const listOf = async (userId: number) => (await d.ScheduledMessage.find({ sender_id: userId, state: { $in: LISTED } }).lean()).sort(bySchedule).map(scheduledView);

	return {
		/**
		 * For the uploads service: which of these uploads a scheduled message not yet sent links (Zulip's
		 * scheduled messages claim their uploads, so unclaimed.ts does not remove them meanwhile).
		 */
		uploadsInUse: {
			visibility: "public",
			params: params({ path_ids: p.stringList({ max: 1000 }) }),
			async handler(ctx: Ctx<{ path_ids: string[] }>) {
				const wanted = new Set(ctx.params.path_ids);
				const linking = await d.ScheduledMessage.find({ upload_path_ids: { $in: ctx.params.path_ids }, state: { $ne: "delivered" } }, { upload_path_ids: 1 }).lean();
				return { path_ids: [...new Set(linking.flatMap((m) => m.upload_path_ids ?? []).filter((id) => wanted.has(id)))] };
			},
		},

		list: {
			params: params({}),
			async handler(ctx: Ctx) {
				return { scheduled_messages: await listOf(requireUser(ctx).user_id) };
			},
		},

		create: {
			params: params({
				type: p.oneOf(TYPES),
				to: toParam,
				topic: p.string({ optional: true }),
				content: p.string(),
				scheduled_delivery_timestamp: p.int({ max: MAX_TIMESTAMP }),
				read_by_sender: p.bool({ optional: true }),
			}),
			async handler(ctx: Ctx<CreateParams>) {
				const actor = requireUser(ctx);
				const q = ctx.params;
				checkDeliveryTime(q.scheduled_delivery_timestamp);
				const type = canonicalType(q.type);
				const to = type === "stream" ? channelIdOf(q.to) : userIdsOf(q.to);
				const checked = await call(ctx, "messages.checkSend", wouldBe(type, to, q.topic, q.content));
				const doc: ScheduledMessageDoc = {
					_id: await d.nextId("scheduled_message"),
					sender_id: actor.user_id,
					sender: actor,
					type: checked.type,
					to: checked.to,
					topic: checked.topic,
					content: checked.content,
					rendered_content: checked.rendered_content,
					upload_path_ids: uploadPathIds(checked.rendered_content, d.externalUrl),
					scheduled_timestamp: q.scheduled_delivery_timestamp,
					read_by_sender: q.read_by_sender ?? defaultReadBySender(checked),
					state: "scheduled",
					failure_message: null,
					claimed_by: null,
					claimed_at: null,
					delivered_message_id: null,
				};
				await d.ScheduledMessage.create(doc);
				await d.announce(actor.user_id, { op: "add", scheduled_messages: [scheduledView(doc)] });
				return { scheduled_message_id: doc._id };
			},
		},

		edit: {
			params: params({
				scheduled_message_id: p.int(),
				type: p.oneOf(TYPES, { optional: true }),
				to: { ...toParam, optional: true },
				topic: p.string({ optional: true }),
				content: p.string({ optional: true }),
				scheduled_delivery_timestamp: p.int({ optional: true, max: MAX_TIMESTAMP }),
			}),
			async handler(ctx: Ctx<EditParams>) {
				const actor = requireUser(ctx);
				const q = ctx.params;
				// Zulip's order of checks (update_scheduled_message_backend, edit_scheduled_message).
				if (q.type === undefined && q.to === undefined && q.topic === undefined && q.content === undefined && q.scheduled_delivery_timestamp === undefined) {
					throw badRequest("Nothing to change");
				}
				if (q.type !== undefined && q.to === undefined) throw badRequest("Recipient required when updating type of scheduled message.");
				if (q.type !== undefined && canonicalType(q.type) === "stream" && q.topic === undefined) {
					throw badRequest("Topic required when updating scheduled message type to stream.");
				}
				if (q.scheduled_delivery_timestamp !== undefined) checkDeliveryTime(q.scheduled_delivery_timestamp);
				const current = await d.ScheduledMessage.findOne({ _id: q.scheduled_message_id, sender_id: actor.user_id }).lean();
				if (!current) throw scheduledMissing();
				if (current.state === "sending" || current.state === "delivered") throw alreadySent();
				if (current.state === "failed" && q.scheduled_delivery_timestamp === undefined) throw badRequest("Scheduled delivery time must be in the future.");

				const set: Partial<ScheduledMessageDoc> = {};
				const type = q.type !== undefined ? canonicalType(q.type) : current.type;
				// A topic alone is ignored for a direct message, as in Zulip.
				const topicMatters = q.topic !== undefined && type === "stream";
				if (q.type !== undefined || q.to !== undefined || q.content !== undefined || topicMatters) {
					// The whole message is checked again, as it would be sent now.
					const to = q.to !== undefined ? (type === "stream" ? channelIdOf(q.to) : userIdsOf(q.to)) : current.to;
					const checked = await call(ctx, "messages.checkSend", wouldBe(type, to, q.topic ?? current.topic, q.content ?? current.content));
					Object.assign(set, { type: checked.type, to: checked.to, topic: checked.topic, content: checked.content, rendered_content: checked.rendered_content });
					set.upload_path_ids = uploadPathIds(checked.rendered_content, d.externalUrl);
				}
				if (q.scheduled_delivery_timestamp !== undefined) set.scheduled_timestamp = q.scheduled_delivery_timestamp;
				// Editing a failed message schedules it again.
				Object.assign(set, { state: "scheduled", failure_message: null });
				// Conditional on the state read: a delivery that claimed it meanwhile wins.
				const updated = await d.ScheduledMessage.findOneAndUpdate({ _id: current._id, state: current.state }, { $set: set }, { returnDocument: "after" }).lean();
				if (!updated) throw alreadySent();
				await d.announce(actor.user_id, { op: "update", scheduled_message: scheduledView(updated) });
				return {};
			},
		},

		delete: {
			params: params({ scheduled_message_id: p.int() }),
			async handler(ctx: Ctx<{ scheduled_message_id: number }>) {
				const actor = requireUser(ctx);
				const current = await d.ScheduledMessage.findOne({ _id: ctx.params.scheduled_message_id, sender_id: actor.user_id }).lean();
				if (!current || current.state === "delivered") throw scheduledMissing();
				if (current.state === "sending") throw alreadySent();
				const removed = await d.ScheduledMessage.deleteOne({ _id: current._id, state: current.state });
				if (!removed.deletedCount) throw alreadySent();
				await d.announce(actor.user_id, { op: "remove", scheduled_message_id: current._id });
				return {};
			},
		},

		registerState: {
			visibility: "public",
			async handler(ctx: Ctx<RegisterStateParams>) {
				const wants = ctx.params.event_types === null || ctx.params.event_types.includes("scheduled_messages");
				return wants ? { scheduled_messages: await listOf(requireUser(ctx).user_id) } : {};
			},
		},
	};
}
