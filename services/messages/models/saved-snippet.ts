// Saved snippets: a user's reusable message texts.
// Query shapes and their indexes:
//   a user's snippets in creation order -> { user_id, _id }
//   one snippet (edit, delete)          -> _id, checked against user_id
import { Connection, Schema } from "mongoose";

export interface SavedSnippetDoc {
	_id: number;
	user_id: number;
	title: string;
	content: string;
	date_created: number;
}

const schema = new Schema<SavedSnippetDoc>(
	{
		_id: Number,
		user_id: { type: Number, required: true },
		title: { type: String, required: true },
		content: { type: String, required: true },
		date_created: { type: Number, required: true },
	},
	{ versionKey: false },
);
schema.index({ user_id: 1, _id: 1 });

export const savedSnippetModel = (conn: Connection) => conn.model<SavedSnippetDoc>("SavedSnippet", schema, "saved_snippets");
