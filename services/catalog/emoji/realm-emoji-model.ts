// The organization's custom emoji (Zulip's RealmEmoji): a name, its author, its image's file name
// (the images are in the uploads service, at the paths of shared/public-images.ts), and whether it
// is deactivated. A deactivated emoji stays (old messages and reactions still show it) and frees
// its name. Query shapes and their indexes:
//   the realm's emoji, by ID                 -> { realm_id, _id }
//   an active emoji by name                  -> { realm_id, name, deactivated }
import { Connection, Schema } from "mongoose";

export interface RealmEmojiDoc {
	_id: number;
	realm_id: number;
	name: string;
	author_id: number | null;
	/** `<random>.<ext>`: the image is at emojiPath(realm_id, file_name). */
	file_name: string;
	is_animated: boolean;
	deactivated: boolean;
}

const schema = new Schema<RealmEmojiDoc>(
	{
		_id: Number,
		realm_id: { type: Number, required: true },
		name: { type: String, required: true },
		author_id: { type: Number, default: null },
		file_name: { type: String, required: true },
		is_animated: { type: Boolean, default: false },
		deactivated: { type: Boolean, default: false },
	},
	{ versionKey: false },
);
schema.index({ realm_id: 1, _id: 1 });
schema.index({ realm_id: 1, name: 1, deactivated: 1 });

export const realmEmojiModel = (conn: Connection) => conn.model<RealmEmojiDoc>("RealmEmoji", schema, "realm_emoji");
