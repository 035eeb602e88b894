// Zulip's `attachment` events (add, update, remove), each to the file's owner, with the
// organization's upload space after the change (notify_attachment_update).
import type { Context } from "moleculer";
import type { AttachmentsChanged } from "../../shared/org-events";
import type { Deliver } from "./deliver";
import type { QueueRegistry } from "./queues";

export function attachmentChangeHandlers(registry: () => QueueRegistry, deliver: Deliver) {
	return {
		"uploads.attachmentsChanged"(ctx: Context<AttachmentsChanged>) {
			const { changes, upload_space_used } = ctx.params;
			for (const c of changes) deliver(registry().of([c.user_id]), "attachment", () => ({ op: c.op, attachment: c.attachment, upload_space_used }));
		},
	};
}
