// The management CLI's announcements waiting for a running server to broadcast them
// (change-relay.ts): what one `npm run manage` command broadcast in its own process, in order.
// A users replica claims a document (claimed_by, its node ID), broadcasts its events on its bus and
// deletes it; the CLI waits for the deletion.
import { Connection, Schema, Types } from "mongoose";

export interface CliChangeDoc {
	_id: Types.ObjectId;
	/** The broadcasts, as JSON: [{ event, payload }, ...] in the order the command made them. */
	events: string;
	/** The node ID of the replica relaying it; null while it waits. */
	claimed_by: string | null;
	created_at: Date;
}

const schema = new Schema<CliChangeDoc>(
	{ events: { type: String, required: true }, claimed_by: { type: String, default: null }, created_at: { type: Date, required: true } },
	{ versionKey: false },
);
// The replicas' poll: the oldest unclaimed document.
schema.index({ claimed_by: 1, _id: 1 });

export const cliChangeModel = (conn: Connection) => conn.model<CliChangeDoc>("CliChange", schema, "cli_changes");
