// A user's navigation views: built-in views pinned or hidden, and custom views with a name.
// Queries: a user's views -> { user_id, fragment } (unique: one record per view); a custom
// view's name -> { user_id, name_key } (unique: a custom name once per user, checked by the
// insert itself; built-in views hold a key no name can equal, NUL and the fragment).
import { Connection, Schema } from "mongoose";

export interface NavigationViewDoc {
	user_id: number;
	fragment: string;
	is_pinned: boolean;
	/** Custom views only; null for a built-in view. */
	name: string | null;
	name_key: string;
}

const schema = new Schema<NavigationViewDoc>(
	{
		user_id: { type: Number, required: true },
		fragment: { type: String, required: true },
		is_pinned: { type: Boolean, required: true },
		name: { type: String, default: null },
		name_key: { type: String, required: true },
	},
	{ versionKey: false },
);
schema.index({ user_id: 1, fragment: 1 }, { unique: true });
schema.index({ user_id: 1, name_key: 1 }, { unique: true });

export const navigationViewModel = (conn: Connection) => conn.model<NavigationViewDoc>("NavigationView", schema, "navigation_views");
