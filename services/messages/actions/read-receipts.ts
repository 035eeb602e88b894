// GET /messages/{message_id}/read_receipts, as Zulip's zerver/views/read_receipts.py: the users
// who read a message the caller may access, without its sender; the users service keeps those
// whose receipts the caller sees (the organization's and each reader's setting, mutes). And, for
// muting, marking a sender's messages read for the muter (Zulip's do_mark_muted_user_messages_as_read).
import { call, requireUser } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import { markRead } from "../flag-rules";
import type { MuterCache } from "../muter-cache";
import type { Ctx, ServiceDeps } from "./deps";

export function readReceiptActions({ db, accessibleMessage }: ServiceDeps, muters: MuterCache) {
	return {
		readReceipts: {
			params: params({ message_id: p.int() }),
			async handler(ctx: Ctx<{ message_id: number }>) {
				const actor = requireUser(ctx);
				const m = await accessibleMessage(ctx, actor, ctx.params.message_id);
				const rows = await db.UserMessage.find({ message_id: m._id, flags: "read" }, { user_id: 1 }).lean();
				const readers = rows.map((r) => r.user_id).filter((u) => u !== m.sender_id);
				return { user_ids: (await call(ctx, "users.receiptReaders", { user_ids: readers })).user_ids };
			},
		},

		markSenderRead: {
			visibility: "public",
			params: params({ sender_id: p.int() }),
			async handler(ctx: Ctx<{ sender_id: number }>) {
				const actor = requireUser(ctx);
				muters.changed(ctx.params.sender_id);
				const done = await markRead(db, { user_id: actor.user_id, sender_id: ctx.params.sender_id });
				if (done.ids.length) await ctx.broadcast("messages.flagsChanged", { user_id: actor.user_id, op: "add", flag: "read", message_ids: done.ids, all: false });
				return { count: done.count };
			},
		},
	};
}
