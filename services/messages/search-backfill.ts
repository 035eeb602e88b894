// Messages stored before keyword search looked up one `words` field have only their content's and
// topic's stems (`search_words`, `topic_words`). At start the service gives each such message its
// `words`, a batch at a time, oldest first, found through the search index itself (a missing field
// is indexed as null). Until it is done, those messages are not found by a search. Replicas that
// start together may fill in the same batch: they write the same values.
import type { MessagesDb } from "./db";
import { allWords } from "./search";

const BATCH = 1000;

/** Fills in `words` where it is missing; returns how many messages it filled in. */
export async function backfillSearchWords(db: MessagesDb, stopped: () => boolean = () => false): Promise<number> {
	let filled = 0;
	while (!stopped()) {
		const legacy = await db.Message.find({ words: null }, { search_words: 1, topic_words: 1 }).sort({ _id: 1 }).limit(BATCH).lean();
		if (!legacy.length) break;
		await db.Message.bulkWrite(
			legacy.map((m) => ({ updateOne: { filter: { _id: m._id }, update: { $set: { words: allWords(m.search_words ?? [], m.topic_words ?? []) } } } })),
			{ ordered: false },
		);
		filled += legacy.length;
		if (legacy.length < BATCH) break;
	}
	return filled;
}
