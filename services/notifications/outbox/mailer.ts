// What every email takes on its way out: a stored copy (the outbox), its unsubscribe link when its
// kind has one, then a first attempt by this replica. The caller waits for the store only, except
// with the file backend, whose send is a local write (as before the outbox): there it waits for
// the file too, so whoever reads EMAIL_DIR next finds it.
import type { Identity } from "../../../shared/actions";
import { UNSUBSCRIBE_WHAT, unsubscribeLink, type UnsubscribeDeps } from "../unsubscribe/unsubscribe-links";
import type { Footer, Rendered, UnsubscribeType } from "../templates/layout";
import { enqueue } from "./outbox";
import { deliverNow, type DeliveryDeps } from "./delivery";

export interface MailerDeps extends DeliveryDeps, UnsubscribeDeps {
	noreply: string;
	/** This replica's name in claims. */
	replica: () => string;
	/** First attempts running in the background (a sweep waits for them: tests see settled states). */
	inflight: Set<Promise<unknown>>;
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

/** Stores the email (once per key) and starts its first attempt; answers whether this call stored it. */
export async function mail(deps: MailerDeps, o: Outgoing): Promise<{ stored: boolean }> {
	// A link of its own would be made for nothing if the email is stored already; with a shared one
	// the insert alone decides (its unique key).
	if (!o.unsubscribe?.link && (await deps.Outbox.exists({ _id: o.key }))) return { stored: false };
	const footer: Footer = {};
	const headers: Record<string, string> = { ...o.headers };
	if (o.unsubscribe && o.user_id !== null) {
		const link = o.unsubscribe.link ?? (await unsubscribeLink(deps, o.realm_url, o.unsubscribe.type, o.user_id, o.unsubscribe.as));
		footer.unsubscribe = { link, what: UNSUBSCRIBE_WHAT[o.unsubscribe.type] };
		headers["List-Unsubscribe"] = `<${link}>`;
	}
	const stored = await enqueue(deps.Outbox, deps.noreply, { key: o.key, kind: o.kind, user_id: o.user_id, to: o.to, rendered: o.render(footer), headers });
	if (!stored) return { stored };
	const first = deliverNow(deps, o.key, deps.replica()).catch((err: unknown) => {
		// The store or bus failed around the attempt: the sweep tries again.
		deps.logger.warn({ err, email: o.key }, "first attempt at an email failed; the sweep will retry");
	});
	if (deps.transport.inline) await first;
	else {
		deps.inflight.add(first);
		void first.finally(() => deps.inflight.delete(first));
	}
	return { stored };
}
