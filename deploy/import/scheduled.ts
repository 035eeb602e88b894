// Scheduled messages (zerver_scheduledmessage) still to be sent, or sent or failed, as the
// scheduling service keeps them: the sender's identity as of scheduling, the target as the API
// names it (a channel ID, or the direct message's other users' IDs). Zulip's reminders
// (delivery_type 2) have no place here yet and are reported.
import type { Identity } from "../../shared/actions";
import type { ScheduledMessageDoc } from "../../services/scheduling/models/scheduled-message";
import type { UserDoc } from "../../services/users/models/user";
import { uploadPathIds } from "../../shared/markdown/upload-links";
import { apiEmail } from "../../services/users/user-view";
import { DeliveryType } from "../../shared/zulip-format/tables";
import { insertAll, seconds, table, type ImportContext } from "./context";

/** Answers how many were imported. */
export async function importScheduled(ctx: ImportContext): Promise<number> {
	const records = table(ctx, "zerver_scheduledmessage");
	const senderIds = [...new Set(records.map((r) => ctx.ids.users.find(r.int("sender"))).filter((id): id is number => id !== undefined))];
	const senders = new Map((await ctx.target.m.User.find({ _id: { $in: senderIds } }).lean<UserDoc[]>()).map((u) => [u._id, u]));
	const host = new URL(ctx.url).host;
	const docs: ScheduledMessageDoc[] = [];
	for (const r of records) {
		if (r.optInt("delivery_type") !== DeliveryType.SEND_LATER) {
			ctx.notKept.add("zerver_scheduledmessage", "reminders (no place for them here yet)");
			continue;
		}
		const senderId = ctx.ids.users.get(r.int("sender"), r, "sender");
		const u = senders.get(senderId);
		if (!u) return r.fail(`its sender ${senderId} is a cross-realm bot`);
		const sender: Identity = { user_id: u._id, realm_id: u.realm_id, email: apiEmail(u, host), delivery_email: u.delivery_email, full_name: u.full_name, role: u.role, is_bot: u.is_bot };
		const to = ctx.ids.recipient(r.int("recipient"), r, "recipient");
		let target: number | number[];
		if (to.kind === "channel") target = to.channel_id;
		else if (to.kind === "user") target = [to.user_id];
		else {
			const members = ctx.ids.huddleMembers.get(to.huddle_id);
			if (!members) return r.fail(`the group DM it is for has no members in the export`);
			target = members.filter((m) => m !== senderId);
		}
		const delivered = r.optBool("delivered") ?? false;
		const failed = r.optBool("failed") ?? false;
		const deliveredMessage = r.optInt("delivered_message");
		docs.push({
			_id: r.int("id"),
			sender_id: senderId,
			sender,
			type: to.kind === "channel" ? "stream" : "private",
			to: target,
			topic: to.kind === "channel" ? (r.optStr("subject") ?? "") : "",
			content: r.str("content"),
			rendered_content: ctx.ids.html(r.optStr("rendered_content") ?? "", ctx.realmId),
			scheduled_timestamp: seconds(r.num("scheduled_timestamp")),
			read_by_sender: r.optBool("read_by_sender") ?? false,
			state: delivered ? "delivered" : failed ? "failed" : "scheduled",
			failure_message: r.optStr("failure_message"),
			claimed_by: null,
			claimed_at: null,
			delivered_message_id: deliveredMessage !== null && ctx.ids.messages.has(deliveredMessage) ? deliveredMessage : null,
			// The files its content links to, as the scheduling service derives them on scheduling.
			upload_path_ids: uploadPathIds(r.optStr("rendered_content") ?? "", ctx.url),
		});
	}
	await insertAll(ctx.target.m.ScheduledMessage, docs);
	await ctx.target.raiseCounter("scheduling", "scheduled_message", Math.max(0, ...docs.map((d) => d._id)));
	return docs.length;
}
