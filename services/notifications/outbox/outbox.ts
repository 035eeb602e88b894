// Storing an email in the outbox: rendered once, under the caller's idempotency key (the _id), so
// a retried call finds it stored and stores nothing. The Message-ID is derived from the key, the
// same on every attempt, so a message sent twice (a replica dying between the send and its record)
// is recognisable as one.
import { createHash } from "node:crypto";
import type { Model } from "mongoose";
import { clock } from "../../../shared/clock";
import { createOnce } from "../../../shared/db";
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

/** Stores the email, due now; false when one with this key was stored already. */
export async function enqueue(Outbox: Model<OutboxEmailDoc>, noreply: string, e: NewEmail): Promise<boolean> {
	const now = clock.nowMs();
	const doc: OutboxEmailDoc = {
		_id: e.key,
		kind: e.kind,
		user_id: e.user_id,
		to: e.to,
		...e.rendered,
		headers: e.headers ?? {},
		message_id: messageIdFor(e.key, noreply),
		state: "queued",
		attempts: 0,
		next_attempt_at: now,
		claimed_by: null,
		claimed_at: null,
		last_error: null,
		created_at: now,
		sent_at: null,
		failed_at: null,
	};
	return createOnce(Outbox, doc);
}
