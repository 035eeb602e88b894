// The organization's code playgrounds. Queries: the realm's list -> { realm_id, _id }; the
// unique name per language -> { realm_id, pygments_language, name } (unique).
import { Connection, Schema } from "mongoose";

export interface PlaygroundDoc {
	_id: number;
	realm_id: number;
	name: string;
	pygments_language: string;
	url_template: string;
}

const schema = new Schema<PlaygroundDoc>(
	{
		_id: Number,
		realm_id: { type: Number, required: true },
		name: { type: String, required: true },
		pygments_language: { type: String, required: true },
		url_template: { type: String, required: true },
	},
	{ versionKey: false },
);
schema.index({ realm_id: 1, _id: 1 });
schema.index({ realm_id: 1, pygments_language: 1, name: 1 }, { unique: true });

export const playgroundModel = (conn: Connection) => conn.model<PlaygroundDoc>("Playground", schema, "realm_playgrounds");
