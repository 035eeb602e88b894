// The organization. One per server today; every user row carries its realm_id regardless.
import { Connection, Schema } from "mongoose";

export interface RealmDoc {
	_id: number;
	/** The subdomain-style identifier, unique on the server ("" for the root organization). */
	string_id: string;
	name: string;
	description: string;
	/** Public URL of the organization, e.g. https://chat.example.com */
	url: string;
	date_created: number;
	deactivated: boolean;
	/** Organization settings that differ from the defaults in ../realm/realm-settings.ts. */
	settings: Record<string, unknown>;
	/** The organization's uploaded icon and logos (../realm/realm-images.ts); absent: never changed. */
	images?: Partial<Record<"icon" | "logo" | "night_logo", { changes: number; path: string | null }>>;
}

const schema = new Schema<RealmDoc>(
	{
		_id: Number,
		string_id: { type: String, default: "" },
		name: { type: String, required: true },
		description: { type: String, default: "" },
		url: { type: String, required: true },
		date_created: { type: Number, required: true },
		deactivated: { type: Boolean, default: false },
		settings: { type: Schema.Types.Mixed, default: {} },
		images: { type: Schema.Types.Mixed, default: {} },
	},
	{ versionKey: false, minimize: false },
);
// Lookup by string_id (one realm per subdomain).
schema.index({ string_id: 1 }, { unique: true });

export const realmModel = (conn: Connection) => conn.model<RealmDoc>("Realm", schema, "realms");
