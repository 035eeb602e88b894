// Alert words: adding and removing them, and finding them in a message's text.
import { escapeRegExp } from "../../shared/regexp";
import { badRequest } from "../../shared/errors";
import { upsertRetrying } from "../../shared/db";
import type { MessagesDb } from "./db";

export const ALERT_WORD_MAX = 100;

/** Trims, drops empty words, and refuses long ones (naming the item, as Zulip does). */
export function checkAlertWords(words: string[]): string[] {
	return words
		.map((w, i) => {
			if (w.length > ALERT_WORD_MAX) throw badRequest(`alert_words[${i}] is too long (limit: ${ALERT_WORD_MAX} characters)`);
			return w.trim();
		})
		.filter(Boolean);
}

export async function alertWordsOf(db: MessagesDb, userId: number): Promise<string[]> {
	return (await db.AlertWords.findById(userId).lean())?.words ?? [];
}

export async function setAlertWords(db: MessagesDb, userId: number, words: string[]): Promise<string[]> {
	await upsertRetrying(() => db.AlertWords.updateOne({ _id: userId }, { $set: { words } }, { upsert: true }));
	return words;
}


/** Recipients (other than the sender) for whom the content contains one of their alert words. */
export async function alertedUsers(db: MessagesDb, recipients: number[], senderId: number, content: string): Promise<Set<number>> {
	const docs = await db.AlertWords.find({ _id: { $in: recipients.filter((u) => u !== senderId) }, "words.0": { $exists: true } }).lean();
	const text = content.toLowerCase();
	const out = new Set<number>();
	for (const d of docs) {
		// Whole words only, case-insensitively.
		if (d.words.some((w) => new RegExp(`(^|[^\\p{L}\\p{N}_])${escapeRegExp(w.toLowerCase())}($|[^\\p{L}\\p{N}_])`, "u").test(text))) out.add(d._id);
	}
	return out;
}
