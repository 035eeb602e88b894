// Removing files no message links (Zulip's do_delete_old_unclaimed_attachments, which its cron
// job runs daily): a file is due once `sweep_after` passed (claim-rules.ts sets it: five weeks
// after its upload, and a deleted message's files 30 days after the deletion at the soonest).
// Each replica sweeps on the service's timer; one removal is decided by deleting the row while it
// is still due, so two replicas never remove one file twice, and a file claimed meanwhile stays.
// A file a scheduled message not yet sent links is kept too (Zulip's scheduled messages claim their
// uploads): the scheduling service is asked about each batch in one call, and such a file is looked
// at again a week later. When that call fails, nothing is removed.
import type { Model } from "mongoose";
import { clock } from "../../shared/clock";
import type { FileStore } from "./file-store";
import type { AttachmentDoc } from "./models/attachment";
import type { ImageAttachmentDoc } from "./models/image-attachment";
import { removeThumbnails } from "./thumbnails";
import type { UploadSpace } from "./upload-space";

/** Rows read per step; a sweep reads again until none is due. */
const BATCH = 100;
/** A file a scheduled message links is looked at again this long after. */
const RECHECK_MS = 7 * 24 * 60 * 60 * 1000;

export interface SweepDeps {
	store: FileStore;
	Attachment: Model<AttachmentDoc>;
	ImageAttachment: Model<ImageAttachmentDoc>;
	space: UploadSpace;
	/** Of these uploads, those a scheduled message not yet sent links (scheduling.uploadsInUse). */
	inUse: (pathIds: string[]) => Promise<Set<string>>;
}

/** Removes every due file, bytes, thumbnails and quota share; answers the rows removed. */
export async function sweepUnclaimed(deps: SweepDeps, onError: (err: unknown, doc: AttachmentDoc) => void): Promise<AttachmentDoc[]> {
	const removed: AttachmentDoc[] = [];
	for (;;) {
		const now = clock.nowMs();
		const due = await deps.Attachment.find({ sweep_after: { $lte: now } }, { _id: 1, path_id: 1 }).sort({ sweep_after: 1 }).limit(BATCH).lean();
		const inUse = due.length ? await deps.inUse(due.map((d) => d.path_id)) : new Set<string>();
		for (const { _id, path_id } of due) {
			if (inUse.has(path_id)) {
				await deps.Attachment.updateOne({ _id, sweep_after: { $lte: now } }, { $set: { sweep_after: now + RECHECK_MS } });
				continue;
			}
			const doc = await deps.Attachment.findOneAndDelete({ _id, sweep_after: { $lte: now } }).lean();
			if (!doc) continue;
			removed.push(doc);
			await deps.space.add(doc.realm_id, -doc.size);
			await deps.store.remove(doc.file_id).catch((err: unknown) => onError(err, doc));
			await removeThumbnails(deps.store, deps.ImageAttachment, doc.path_id).catch((err: unknown) => onError(err, doc));
		}
		if (due.length < BATCH) return removed;
	}
}
