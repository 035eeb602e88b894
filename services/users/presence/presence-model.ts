// Each user's presence, as Zulip's UserPresence: one document per user (its _id the user's ID),
// stamped with the organization's presence counter at each change. Queries and their indexes:
//   one user's (a ping, GET /users/{id}/presence)          -> _id
//   changed since a client's last_update_id                -> { realm_id, last_update_id }
//   connected since a date (legacy clients, register)       -> { realm_id, last_connected_time }
import { Connection, Schema } from "mongoose";

export interface PresenceDoc {
	/** The user's ID. */
	_id: number;
	realm_id: number;
	/** The last "active" report; null when the user was only ever idle. */
	last_active_time: Date | null;
	last_connected_time: Date;
	/** The organization's presence counter when this document last changed. */
	last_update_id: number;
}

const schema = new Schema<PresenceDoc>(
	{
		_id: Number,
		realm_id: { type: Number, required: true },
		last_active_time: { type: Date, default: null },
		last_connected_time: { type: Date, required: true },
		last_update_id: { type: Number, required: true },
	},
	{ versionKey: false },
);
schema.index({ realm_id: 1, last_update_id: 1 });
schema.index({ realm_id: 1, last_connected_time: 1 });

export const presenceModel = (conn: Connection) => conn.model<PresenceDoc>("Presence", schema, "user_presence");
