// The organization's linkifiers. Queries: the realm's list in order -> { realm_id, order, _id };
// a pattern once per realm -> { realm_id, pattern } (unique).
import { Connection, Schema } from "mongoose";

export interface LinkifierDoc {
	_id: number;
	realm_id: number;
	pattern: string;
	url_template: string;
	/** Linkifiers apply in this order (ties by ID), which matters where patterns overlap. */
	order: number;
}

const schema = new Schema<LinkifierDoc>(
	{
		_id: Number,
		realm_id: { type: Number, required: true },
		pattern: { type: String, required: true },
		url_template: { type: String, required: true },
		order: { type: Number, default: 0 },
	},
	{ versionKey: false },
);
schema.index({ realm_id: 1, order: 1, _id: 1 });
schema.index({ realm_id: 1, pattern: 1 }, { unique: true });

export const linkifierModel = (conn: Connection) => conn.model<LinkifierDoc>("Linkifier", schema, "realm_filters");
