// The organization's owner guard: one document per organization (its _id the organization's ID),
// held while a request checks that an owner is not the last and writes the change, so two such
// requests never both pass the check. Only read and written by _id.
import { Connection, Schema } from "mongoose";

export interface OwnerGuardDoc {
	_id: number;
	/** Until when (ms) the holder keeps it; 0 when free. A holder that died frees it by expiring. */
	held_until: number;
	/** The holder's token, so only the holder frees it. */
	token: string;
}

const schema = new Schema<OwnerGuardDoc>({ _id: Number, held_until: { type: Number, required: true }, token: { type: String, default: "" } }, { versionKey: false });

export const ownerGuardModel = (conn: Connection) => conn.model<OwnerGuardDoc>("OwnerGuard", schema, "owner_guards");
