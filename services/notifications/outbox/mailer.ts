// What every email takes on its way out: a stored copy (the outbox), its unsubscribe link when its
// kind has one, then a first attempt by this replica (emails stored together go together). The caller waits for the store only, except
// with the file backend, whose send is a local write (as before the outbox): there it waits for
// the file too, so whoever reads EMAIL_DIR next finds it.
import type { Identity } from "../../../shared/actions";
import { UNSUBSCRIBE_WHAT, unsubscribeLink, type UnsubscribeDeps } from "../unsubscribe/unsubscribe-links";
import type { Footer, Rendered, UnsubscribeType } from "../templates/layout";
import { keepUntilSettled } from "../background";
import type { FirstAttempts } from "../claims";
import { enqueue, type NewEmail } from "./outbox";
import { attemptClaimed, type DeliveryDeps } from "./delivery";

export interface MailerDeps extends DeliveryDeps, UnsubscribeDeps, FirstAttempts {
	noreply: string;
}

export interface Outgoing {
	key: string;
	kind: string;
	to: string;
	user_id: number | null;
	realm_url: string;
	/** Its kind's unsubscribe link, for the recipient (`as`: who a setting change is made as); `link`: one made already (unsubscribeLinks), shared by several emails. */
	unsubscribe?: { type: UnsubscribeType; as: Identity | null; link?: string };
	/** Headers of its own (Reply-To). */
	headers?: Record<string, string>;
	render(footer: Footer): Rendered;
}

/** Its footer and headers: the unsubscribe link (the shared one, or one of its own) when its kind has one. */
async function envelope(deps: MailerDeps, o: Outgoing): Promise<NewEmail> {
	const footer: Footer = {};
	const headers: Record<string, string> = { ...o.headers };
	if (o.unsubscribe && o.user_id !== null) {
		const link = o.unsubscribe.link ?? (await unsubscribeLink(deps, o.realm_url, o.unsubscribe.type, o.user_id, o.unsubscribe.as));
		footer.unsubscribe = { link, what: UNSUBSCRIBE_WHAT[o.unsubscribe.type] };
		headers["List-Unsubscribe"] = `<${link}>`;
	}
	return { key: o.key, kind: o.kind, user_id: o.user_id, to: o.to, rendered: o.render(footer), headers };
}

/**
 * Stores the emails not stored yet (one insert) and starts their first attempt together; answers
 * the keys this call stored. Each with a link of its own makes it first (give them a shared one,
 * `unsubscribe.link`, for many).
 */
export async function mailMany(deps: MailerDeps, list: Outgoing[]): Promise<string[]> {
	const replica = deps.replica();
	const stored = await enqueue(deps.Outbox, deps.noreply, replica, await Promise.all(list.map((o) => envelope(deps, o))));
	if (!stored.length) return [];
	const first = attemptClaimed(deps, stored, replica).catch((err: unknown) => {
		// The store failed around the attempt: the claims go stale and the sweep tries again.
		deps.logger.warn({ err, emails: stored.length }, "first attempt at emails failed; the sweep will retry");
	});
	if (deps.transport.inline) await first;
	else keepUntilSettled(deps.inflight, first);
	return stored.map((e) => e._id);
}

/** Stores the email (once per key) and starts its first attempt; answers whether this call stored it. */
export async function mail(deps: MailerDeps, o: Outgoing): Promise<{ stored: boolean }> {
	// A link of its own would be made for nothing if the email is stored already; with a shared one
	// the insert alone decides (its unique key).
	if (o.unsubscribe && !o.unsubscribe.link && o.user_id !== null && (await deps.Outbox.exists({ _id: o.key }))) return { stored: false };
	return { stored: (await mailMany(deps, [o])).length > 0 };
}
