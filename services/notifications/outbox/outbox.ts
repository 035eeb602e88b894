// Storing emails in the outbox: each rendered once, under the caller's idempotency key (the _id),
// so a retried call finds it stored and stores nothing; stored claimed by the replica that stores
// it, which sends it at once (delivery.ts). The Message-ID is derived from the key, the
// same on every attempt, so a message sent twice (a replica dying between the send and its record)
// is recognisable as one.
import { createHash } from "node:crypto";
import type { Model } from "mongoose";
import { clock } from "../../../shared/clock";
import { insertNew } from "../../../shared/db";
import type { Rendered } from "../templates/layout";
import type { OutboxEmailDoc } from "../models/outbox-email";

export interface NewEmail {
	key: string;
	kind: string;
	user_id: number | null;
	to: string;
	rendered: Rendered;
	headers?: Record<string, string>;
}

/** `<32 hex digits of the key's SHA-256@the sender's domain>`. */
export function messageIdFor(key: string, noreply: string): string {
	const domain = noreply.includes("@") ? noreply.slice(noreply.lastIndexOf("@") + 1) : "localhost";
	return `<${createHash("sha256").update(key).digest("hex").slice(0, 32)}@${domain}>`;
}

/** Stores the emails whose keys are not stored yet (one unordered insert), claimed by `replica` for their first attempt; answers those this call stored. */
export async function enqueue(Outbox: Model<OutboxEmailDoc>, noreply: string, replica: string, emails: NewEmail[]): Promise<OutboxEmailDoc[]> {
	const now = clock.nowMs();
	const docs = emails.map(
		(e): OutboxEmailDoc => ({
			_id: e.key,
			kind: e.kind,
			user_id: e.user_id,
			to: e.to,
			...e.rendered,
			headers: e.headers ?? {},
			message_id: messageIdFor(e.key, noreply),
			state: "sending",
			attempts: 1,
			next_attempt_at: now,
			claimed_by: replica,
			claimed_at: now,
			last_error: null,
			created_at: now,
			sent_at: null,
			failed_at: null,
		}),
	);
	return insertNew(Outbox.collection, docs);
}
