// The uploads a message claims (Zulip's do_claim_attachments on a send, and
// check_attachment_reference_change on an edit): the links to /user_uploads/ its rendered content
// holds, claimed in one call to the uploads service, which decides by Zulip's rules which the
// sender may claim. The message's has_attachment is whether it claimed any, as Zulip sets it, and
// is written to the message and its rows when it differs from what the renderer guessed.
import { call, type ChannelTarget, type Ctx, type Identity } from "../../shared/actions";
import { uploadPathIds } from "../../shared/markdown/upload-links";
import type { MessagesDb } from "./db";
import type { MessageDoc } from "./models/message";

/** Where the message is: a public / web-public channel makes the files it claims realm-public / web-public. */
export interface Publicity {
	is_realm_public: boolean;
	is_web_public: boolean;
}

const PRIVATE: Publicity = { is_realm_public: false, is_web_public: false };

/** A channel's publicity, as channels.sendTarget describes it (a public channel is realm-public). */
export const publicityOf = (c: Pick<ChannelTarget, "invite_only" | "is_web_public">): Publicity => ({ is_realm_public: c.invite_only === false, is_web_public: c.is_web_public === true });

export interface ClaimInput {
	message: Pick<MessageDoc, "_id" | "timestamp" | "channel_id">;
	sender: Identity;
	/** The message's rendered content now. */
	html: string;
	/** The has_attachment the message and its rows hold now. */
	stored: boolean;
	/** An edit: the rendered content and has_attachment before it; absent for a new message. */
	before?: { html: string; has_attachment: boolean };
	/** The channel's publicity, asked only when a claim is made. */
	publicity: () => Promise<Publicity>;
}

/**
 * Claims the uploads the message links and answers its has_attachment. A new message linking no
 * upload, or an edit that links the same uploads as before, makes no call. A failed call is
 * logged and leaves the message as it is: the message is sent (or edited) all the same.
 */
export async function claimUploads(ctx: Ctx<any>, db: MessagesDb, externalUrl: string, q: ClaimInput): Promise<boolean> {
	const pathIds = uploadPathIds(q.html, externalUrl);
	if (q.before === undefined ? !pathIds.length : sameSet(pathIds, uploadPathIds(q.before.html, externalUrl))) {
		// Zulip's check_attachment_reference_change: unchanged links keep the message's claims as they were.
		return settle(db, q, q.before?.has_attachment ?? false);
	}
	try {
		const publicity = q.message.channel_id === null ? PRIVATE : await q.publicity();
		const { has_attachment } = await call(ctx, "uploads.claim", {
			message_id: q.message._id,
			date_sent: q.message.timestamp,
			sender: q.sender,
			channel_id: q.message.channel_id,
			path_ids: pathIds,
			...publicity,
		});
		return settle(db, q, has_attachment);
	} catch (err) {
		ctx.service?.logger.error({ err, message_id: q.message._id }, "claiming a message's uploads failed");
		return q.stored;
	}
}

function sameSet(a: string[], b: string[]): boolean {
	const set = new Set(b);
	return a.length === set.size && a.every((x) => set.has(x));
}

async function settle(db: MessagesDb, q: ClaimInput, has: boolean): Promise<boolean> {
	if (has !== q.stored) {
		await db.Message.updateOne({ _id: q.message._id }, { $set: { has_attachment: has } });
		await db.UserMessage.updateMany({ message_id: q.message._id }, { $set: { has_attachment: has } });
	}
	return has;
}
