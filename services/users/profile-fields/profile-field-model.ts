// Custom profile fields of an organization. Users' values live on the user document
// (`profile_data`, keyed by field ID). Queries: all fields of a realm, ordered -> { realm_id, order }.
import { Connection, Schema } from "mongoose";

export interface ProfileFieldDoc {
	_id: number;
	realm_id: number;
	name: string;
	hint: string;
	/** 1 short text, 2 long text, 3 choice, 4 date, 5 link, 6 user, 7 external account, 8 pronouns. */
	type: number;
	/** JSON text: the choices of a choice field, the subtype of an external account field; else "". */
	field_data: string;
	order: number;
	display_in_profile_summary: boolean;
	required: boolean;
	editable_by_user: boolean;
}

const schema = new Schema<ProfileFieldDoc>(
	{
		_id: Number,
		realm_id: { type: Number, required: true },
		name: { type: String, required: true },
		hint: { type: String, default: "" },
		type: { type: Number, required: true },
		field_data: { type: String, default: "" },
		order: { type: Number, required: true },
		display_in_profile_summary: { type: Boolean, default: false },
		required: { type: Boolean, default: false },
		editable_by_user: { type: Boolean, default: true },
	},
	{ versionKey: false },
);
schema.index({ realm_id: 1, order: 1 });

export const profileFieldModel = (conn: Connection) => conn.model<ProfileFieldDoc>("ProfileField", schema, "profile_fields");
