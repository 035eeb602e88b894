// Which uploads a message claims (Zulip's do_claim_attachments and check_attachment_reference_change):
// a message's links to /user_uploads/ name files; the sender claims those they own, and others'
// only if they may already read them (validate_attachment_request as the sender), so linking a
// guessed path gives nobody access. An edit keeps the claims its new content still links,
// drops the others and claims the new ones; a deletion drops the message's claims.
import type { Model } from "mongoose";
import type { AttachmentClaimRequest, Identity } from "../../shared/actions";
import { isGuest } from "../../shared/roles";
import { clock } from "../../shared/clock";
import type { AttachmentClaim, AttachmentDoc } from "./models/attachment";

const DAY_MS = 24 * 60 * 60 * 1000;
/** Zulip's delete_old_unclaimed_attachments default: a file no message links is kept five weeks from its upload. */
export const UNCLAIMED_KEPT_MS = 35 * DAY_MS;
/** Zulip's ARCHIVED_DATA_VACUUMING_DELAY_DAYS: a deleted message's files are kept 30 days after it (its archive). */
export const DELETED_KEPT_MS = 30 * DAY_MS;

/** Read by a member who is no guest wherever the file is linked from a public channel. */
export const isRealmPublic = (doc: Pick<AttachmentDoc, "messages">) => doc.messages.some((c) => c.is_realm_public);
export const isWebPublic = (doc: Pick<AttachmentDoc, "messages">) => doc.messages.some((c) => c.is_web_public);

/** What may be read without asking the messages service: the owner's, and realm-public files for non-guests. */
export function readableWithoutMessages(doc: AttachmentDoc, user: Pick<Identity, "user_id" | "realm_id" | "role">): boolean {
	if (doc.realm_id !== user.realm_id) return false;
	return doc.owner_id === user.user_id || (isRealmPublic(doc) && !isGuest(user.role));
}

/** Of these messages, those the user may read (messages.readableAmong, one call). */
export type ReadableAmong = (messageIds: number[]) => Promise<Set<number>>;

/** Whether the user may read a file that needs its messages asked about (readableWithoutMessages said no). */
export async function readableThroughMessages(doc: AttachmentDoc, readable: ReadableAmong): Promise<boolean> {
	if (!doc.messages.length) return false;
	const ok = await readable(doc.messages.map((c) => c.id));
	return doc.messages.some((c) => ok.has(c.id));
}

/** What one claim request changes: the files it adds the message to, and those it drops it from. */
export interface ClaimPlan {
	add: AttachmentDoc[];
	drop: AttachmentDoc[];
	/** The message links at least one file it claims (the message's has_attachment). */
	hasAttachment: boolean;
}

/**
 * Plans a claim, reading only: the files the message claims now, those its links add (each
 * checked as Zulip does, the ones neither the sender's nor realm-public to them asked about in
 * one call) and those it no longer links.
 */
export async function planClaim(Attachment: Model<AttachmentDoc>, q: AttachmentClaimRequest, readable: ReadableAmong): Promise<ClaimPlan> {
	const wanted = new Set(q.path_ids);
	const current = await Attachment.find({ "messages.id": q.message_id }).lean();
	const kept = current.filter((d) => wanted.has(d.path_id));
	const drop = current.filter((d) => !wanted.has(d.path_id));
	const have = new Set(current.map((d) => d.path_id));
	const newPaths = [...wanted].filter((p) => !have.has(p));
	const candidates = newPaths.length ? await Attachment.find({ path_id: { $in: newPaths } }).lean() : [];
	// Another organization's file is never claimed (nor is its existence revealed).
	const own = candidates.filter((d) => d.realm_id === q.sender.realm_id);
	const add = own.filter((d) => readableWithoutMessages(d, q.sender));
	const rest = own.filter((d) => !readableWithoutMessages(d, q.sender) && d.messages.length);
	if (rest.length) {
		const ok = await readable([...new Set(rest.flatMap((d) => d.messages.map((c) => c.id)))]);
		add.push(...rest.filter((d) => d.messages.some((c) => ok.has(c.id))));
	}
	return { add, drop, hasAttachment: kept.length + add.length > 0 };
}

/** Writes a planned claim in one round trip; answers the files as they are after it. */
export async function applyClaim(Attachment: Model<AttachmentDoc>, q: AttachmentClaimRequest, plan: ClaimPlan): Promise<AttachmentDoc[]> {
	const claim: AttachmentClaim = { id: q.message_id, channel_id: q.channel_id, date_sent: q.date_sent * 1000, is_realm_public: q.is_realm_public, is_web_public: q.is_web_public };
	const ops = [
		// A claim already there (a repeated request) is not added twice.
		...plan.add.map((d) => ({ updateOne: { filter: { _id: d._id, "messages.id": { $ne: q.message_id } }, update: { $push: { messages: claim }, $unset: { sweep_after: 1 } } } })),
		...plan.drop.map((d) => ({ updateOne: { filter: { _id: d._id }, update: { $pull: { messages: { id: q.message_id } } } } })),
	];
	if (!ops.length) return [];
	await Attachment.bulkWrite(ops, { ordered: false });
	const changed = await Attachment.find({ _id: { $in: [...plan.add, ...plan.drop].map((d) => d._id) } }).lean();
	// A file an edit no longer links is kept by Zulip's rule for unclaimed files alone.
	await markUnclaimed(Attachment, changed, 0);
	return changed;
}

/**
 * Files left with no claim become due for removal (unclaimed.ts): UNCLAIMED_KEPT_MS after their
 * upload, and not before `keptMs` from now (Zulip keeps a deleted message's files while its archive
 * lasts). The condition on an empty list leaves a file claimed again meanwhile alone.
 */
async function markUnclaimed(Attachment: Model<AttachmentDoc>, docs: AttachmentDoc[], keptMs: number): Promise<void> {
	const now = clock.nowMs();
	const ops = docs
		.filter((d) => !d.messages.length)
		.map((d) => ({ updateOne: { filter: { _id: d._id, messages: { $size: 0 } }, update: { $set: { sweep_after: Math.max(d.create_time + UNCLAIMED_KEPT_MS, now + keptMs) } } } }));
	if (ops.length) await Attachment.bulkWrite(ops, { ordered: false });
}

/** Drops deleted messages' claims; answers the files that lost one, as they are now. */
export async function dropClaims(Attachment: Model<AttachmentDoc>, messageIds: number[]): Promise<AttachmentDoc[]> {
	const linked = await Attachment.find({ "messages.id": { $in: messageIds } }, { _id: 1 }).lean();
	if (!linked.length) return [];
	const ids = linked.map((d) => d._id);
	await Attachment.updateMany({ _id: { $in: ids } }, { $pull: { messages: { id: { $in: messageIds } } } });
	const changed = await Attachment.find({ _id: { $in: ids } }).lean();
	await markUnclaimed(Attachment, changed, DELETED_KEPT_MS);
	return changed;
}

/** Moved messages' claims take their new channel and its publicity. */
export async function moveClaims(Attachment: Model<AttachmentDoc>, messageIds: number[], channelId: number, isRealmPublic: boolean, isWebPublic: boolean): Promise<void> {
	await Attachment.updateMany(
		{ "messages.id": { $in: messageIds } },
		{ $set: { "messages.$[c].channel_id": channelId, "messages.$[c].is_realm_public": isRealmPublic, "messages.$[c].is_web_public": isWebPublic } },
		{ arrayFilters: [{ "c.id": { $in: messageIds } }] },
	);
}

/**
 * A channel became public or private, web-public or not (`channels.updated`): the claims of its
 * messages follow, as Zulip's do_change_stream_permission resets is_realm_public for them.
 */
export async function channelPublicityChanged(Attachment: Model<AttachmentDoc>, channelId: number, changes: Record<string, unknown>): Promise<void> {
	const set: Record<string, boolean> = {};
	if (typeof changes.invite_only === "boolean") set["messages.$[c].is_realm_public"] = !changes.invite_only;
	if (typeof changes.is_web_public === "boolean") set["messages.$[c].is_web_public"] = changes.is_web_public;
	if (!Object.keys(set).length) return;
	await Attachment.updateMany({ "messages.channel_id": channelId }, { $set: set }, { arrayFilters: [{ "c.channel_id": channelId }] });
}
