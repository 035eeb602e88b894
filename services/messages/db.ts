// The messages service's database handles, shared by its modules.
import type { Model } from "mongoose";
import type { MessageDoc } from "./models/message";
import type { UserMessageDoc } from "./models/user-message";
import type { RecipientDoc } from "./models/recipient";
import type { AlertWordsDoc } from "./models/alert-words";
import type { ReactionDoc } from "./models/reaction";
import type { DraftDoc } from "./models/draft";
import type { SavedSnippetDoc } from "./models/saved-snippet";
import type { SubmessageDoc } from "./models/submessage";

export interface MessagesDb {
	Message: Model<MessageDoc>;
	UserMessage: Model<UserMessageDoc>;
	Recipient: Model<RecipientDoc>;
	AlertWords: Model<AlertWordsDoc>;
	Reaction: Model<ReactionDoc>;
	Submessage: Model<SubmessageDoc>;
	Draft: Model<DraftDoc>;
	SavedSnippet: Model<SavedSnippetDoc>;
	nextId: (entity: string, count?: number) => Promise<number>;
	realmId: number;
}


/** The recipient ID of a conversation key, created on first use (a unique key settles races). */
export async function recipientId(db: MessagesDb, key: string): Promise<number> {
	const found = await db.Recipient.findOne({ key }).lean();
	if (found) return found._id;
	const id = await db.nextId("recipient");
	try {
		const user_ids = key.startsWith("dm:") ? key.slice(3).split(",").map(Number) : [];
		await db.Recipient.create({ _id: id, key, user_ids });
		return id;
	} catch {
		const again = await db.Recipient.findOne({ key }).lean();
		if (!again) throw new Error(`recipient ${key} could not be created`);
		return again._id;
	}
}
