// The users replicas that relay the management CLI's changes (change-relay.ts), one document per
// replica, stamped every few seconds while it runs and deleted when it stops: the CLI asks whether
// any server runs before handing it a change to wait for.
import { Connection, Schema } from "mongoose";

export interface CliRelayDoc {
	/** The replica's node ID. */
	_id: string;
	seen_at: Date;
}

const schema = new Schema<CliRelayDoc>({ _id: String, seen_at: { type: Date, required: true } }, { versionKey: false });
// Whether any replica was seen lately; the old ones swept.
schema.index({ seen_at: 1 });

export const cliRelayModel = (conn: Connection) => conn.model<CliRelayDoc>("CliRelay", schema, "cli_relays");
