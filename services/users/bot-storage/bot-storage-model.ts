// A bot's storage (GET, PUT and DELETE /bot_storage): one record per bot and key, as Zulip's
// BotStorageData. `size` is the entry's share of the bot's quota, Zulip's len(key) + len(value)
// in code points, kept so the bot's total is one sum over its records.
// Queries: one bot's entries, all or by key -> { bot_id, key } (unique: one record per key, so
// concurrent writes of one key upsert one record); the bot's total -> the same index's prefix.
import { Connection, Schema } from "mongoose";

export interface BotStorageDoc {
	bot_id: number;
	key: string;
	value: string;
	size: number;
}

const schema = new Schema<BotStorageDoc>(
	{
		bot_id: { type: Number, required: true },
		// Not `required`: Mongoose would refuse the empty string, a key and a value Zulip takes.
		key: { type: String },
		value: { type: String },
		size: { type: Number, required: true },
	},
	{ versionKey: false },
);
schema.index({ bot_id: 1, key: 1 }, { unique: true });

export const botStorageModel = (conn: Connection) => conn.model<BotStorageDoc>("BotStorage", schema, "bot_storage");
