// GET /attachments and DELETE /attachments/{attachment_id} (Zulip's zerver/views/attachments.py),
// and, for the messages service, the claims messages make on uploads: claim (a send or an edit),
// unclaim (a deletion), messagesMoved (a move to another channel).
import type { Context } from "moleculer";
import { call, requireUser, type AttachmentClaimRequest, type Ctx } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { applyClaim, dropClaims, moveClaims, planClaim } from "../claim-rules";
import { readableBy } from "../file-access";
import { MAX_LINKED_UPLOADS } from "../../../shared/markdown/upload-links";
import { announceAttachments, attachmentView } from "../attachment-view";
import { removeThumbnails } from "../thumbnails";
import { sweepUnclaimed } from "../unclaimed";
import type { AttachmentDoc } from "../models/attachment";
import type { UploadsDeps } from "./deps";

/** Zulip's access_attachment_by_id: an unknown ID and someone else's file are refused alike. */
const invalidAttachment = () => badRequest("Invalid attachment");

/** The most messages one unclaim or move names (a topic is deleted or moved in batches smaller than this). */
const MAX_MESSAGE_IDS = 10_000;

/** One sweep of unclaimed files, and their owners told (a `remove` event each). */
export async function removeUnclaimed(deps: UploadsDeps, ctx: Context): Promise<AttachmentDoc[]> {
	const inUse = async (pathIds: string[]) => new Set((await call(ctx, "scheduling.uploadsInUse", { path_ids: pathIds })).path_ids);
	const removed = await sweepUnclaimed({ ...deps, inUse }, (err, doc) => ctx.service?.logger.error({ err, attachment_id: doc._id }, "removing an unclaimed attachment's bytes failed"));
	for (const realmId of new Set(removed.map((d) => d.realm_id))) {
		await announceAttachments(ctx, deps.space, realmId, removed.filter((d) => d.realm_id === realmId).map((doc) => ({ op: "remove" as const, doc })));
	}
	return removed;
}

export function attachmentActions(deps: UploadsDeps) {
	return {
		listAttachments: {
			params: params({}),
			async handler(ctx: Ctx) {
				const user = requireUser(ctx);
				const [docs, used] = await Promise.all([deps.Attachment.find({ owner_id: user.user_id }).sort({ _id: 1 }).lean(), deps.space.used(user.realm_id)]);
				return { attachments: docs.map(attachmentView), upload_space_used: used };
			},
		},

		removeAttachment: {
			params: params({ attachment_id: p.int() }),
			async handler(ctx: Ctx<{ attachment_id: number }>) {
				const user = requireUser(ctx);
				// Deleting the row first is what decides between two concurrent deletions: only the one
				// that removed it gives the bytes back to the quota.
				const doc = await deps.Attachment.findOneAndDelete({ _id: ctx.params.attachment_id, owner_id: user.user_id }).lean();
				if (!doc) throw invalidAttachment();
				await deps.space.add(user.realm_id, -doc.size);
				// Decision: the file is gone from the API once its row is; bytes left behind by a failed
				// removal are logged, not answered (Zulip answers an error and keeps the row).
				await deps.store.remove(doc.file_id).catch((err: unknown) => ctx.service?.logger.error({ err, attachment_id: doc._id }, "removing a deleted attachment's bytes failed"));
				// An image's thumbnails go with it, as in Zulip (thumbnails.ts).
				await removeThumbnails(deps.store, deps.ImageAttachment, doc.path_id).catch((err: unknown) => ctx.service?.logger.error({ err, attachment_id: doc._id }, "removing a deleted image's thumbnails failed"));
				await announceAttachments(ctx, deps.space, user.realm_id, [{ op: "remove", doc }]);
				return {};
			},
		},

		claim: {
			visibility: "public",
			params: params({
				message_id: p.int({ min: 1 }),
				date_sent: p.int({ min: 0 }),
				sender: p.object({ user_id: p.int(), realm_id: p.int(), role: p.int() }),
				channel_id: { ...p.int(), nullable: true },
				path_ids: p.stringList({ max: MAX_LINKED_UPLOADS }),
				is_realm_public: p.bool(),
				is_web_public: p.bool(),
			}),
			async handler(ctx: Ctx<AttachmentClaimRequest>) {
				const q = ctx.params;
				// Asked as the sender; through the broker, so the caller's own meta is left as it was.
				const plan = await planClaim(deps.Attachment, q, readableBy(ctx.broker, q.sender));
				const changed = await applyClaim(deps.Attachment, q, plan);
				await announceAttachments(ctx, deps.space, q.sender.realm_id, changed.map((doc) => ({ op: "update" as const, doc })));
				return { has_attachment: plan.hasAttachment };
			},
		},

		unclaim: {
			visibility: "public",
			params: params({ message_ids: p.intList({ max: MAX_MESSAGE_IDS }) }),
			async handler(ctx: Ctx<{ message_ids: number[] }>) {
				if (!ctx.params.message_ids.length) return {};
				const changed = await dropClaims(deps.Attachment, ctx.params.message_ids);
				if (changed.length) await announceAttachments(ctx, deps.space, changed[0].realm_id, changed.map((doc) => ({ op: "update" as const, doc })));
				return {};
			},
		},

		/** Removes the files no message has linked for long enough (unclaimed.ts); the service's timer runs it too. */
		sweepUnclaimed: {
			visibility: "public",
			params: params({}),
			async handler(ctx: Ctx) {
				return { removed: (await removeUnclaimed(deps, ctx)).length };
			},
		},

		messagesMoved: {
			visibility: "public",
			params: params({ message_ids: p.intList({ max: MAX_MESSAGE_IDS }), channel_id: p.int(), is_realm_public: p.bool(), is_web_public: p.bool() }),
			async handler(ctx: Ctx<{ message_ids: number[]; channel_id: number; is_realm_public: boolean; is_web_public: boolean }>) {
				const q = ctx.params;
				if (q.message_ids.length) await moveClaims(deps.Attachment, q.message_ids, q.channel_id, q.is_realm_public, q.is_web_public);
				return {};
			},
		},
	};
}
