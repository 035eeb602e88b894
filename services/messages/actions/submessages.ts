// POST /submessage: a vote, a new option, a new task... on a message's widget, as Zulip's
// process_submessage. Everything is checked before anything is written: the caller may see the
// message; the first submessage is the message sender's (the widget a /poll or /todo message
// gets at send time), so others may add theirs only after it; the content is JSON, checked
// against the widget's type (widget-checks.ts). Each submessage is announced as
// messages.submessageAdded to everyone who has the message (a row each, as Zulip's
// UserMessage), and counts as taking part in the topic for the automatic follow and unmute.
import { requireUser } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { NAME_MAX, WIDGET_CONTENT_MAX } from "../../../shared/param-bounds";
import { holdersOf } from "../edit-rules";
import { parsePyJson } from "../python-json";
import { senderAttached, widgetTypeOfMessage } from "../submessages";
import { validateWidgetEvent, WidgetDataError } from "../widget-checks";
import type { Ctx, ServiceDeps } from "./deps";

export function submessageActions({ db, accessibleMessage, autoFollow }: ServiceDeps) {
	return {
		addSubmessage: {
			params: params({ message_id: p.int(), msg_type: p.string({ max: NAME_MAX }), content: p.string({ max: WIDGET_CONTENT_MAX }) }),
			async handler(ctx: Ctx<{ message_id: number; msg_type: string; content: string }>) {
				const actor = requireUser(ctx);
				const { msg_type, content } = ctx.params;
				const m = await accessibleMessage(ctx, actor, ctx.params.message_id);
				const isWidgetAuthor = m.sender_id === actor.user_id;
				if (!isWidgetAuthor && !(await senderAttached(db, m))) throw badRequest("You cannot attach a submessage to this message.");
				let data: unknown;
				try {
					data = parsePyJson(content);
				} catch {
					throw badRequest("Invalid json for submessage");
				}
				try {
					validateWidgetEvent(await widgetTypeOfMessage(db, m), data, isWidgetAuthor);
				} catch (err) {
					if (err instanceof WidgetDataError) throw badRequest(err.message);
					throw err;
				}
				// The flag first: should the insert fail, the flag only costs a query that finds nothing.
				if (!m.has_submessages) await db.Message.updateOne({ _id: m._id }, { $set: { has_submessages: true } });
				const id = await db.nextId("submessage");
				await db.Submessage.create({ _id: id, message_id: m._id, sender_id: actor.user_id, msg_type, content });
				await ctx.broadcast("messages.submessageAdded", { msg_type, content, message_id: m._id, sender_id: actor.user_id, submessage_id: id, user_ids: await holdersOf(db, [m._id]) });
				if (m.channel_id !== null) {
					// The submessage is stored: a failure to follow the topic is logged, not answered.
					await autoFollow.apply(ctx, m.channel_id, m.topic, [{ user: actor, act: "react" }]).catch((err: unknown) => ctx.service?.logger.error({ err }, "automatic topic follow failed"));
				}
				return {};
			},
		},
	};
}
