// What the pages reached by a secret key in their URL (sign-up links, email confirmation) check
// before looking at the key: that the address has not spent its budget of wrong keys, and that a
// POST comes from this server's own pages (csrf.ts).
//
// Only failures count: a wrong, expired, used or revoked key, on GET or POST. Once an address has
// had SIGNUP_KEY_FAILURES of them in a window of SIGNUP_KEY_WINDOW_SECONDS, every request it makes
// to these pages is 429 with Retry-After until the window ends, a right key included (else the
// answer to a guess would still tell whether it was right). Other addresses are not affected.
// Kept in each gateway replica's memory, as the API's limiter (rate-limit.ts): with N replicas an
// address gets at most N times the budget.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Config } from "../../shared/config";
import { clock } from "../../shared/clock";
import { csrfFailed, rateLimited, renderError } from "../../shared/errors";
import { escapeHtml } from "../../shared/html";
import { crossSiteReason } from "./csrf";
import { sendPage, sendPageJson, wantsJson } from "./html-page";
import { RateLimiter } from "./rate-limit";

export class PageGuard {
	private failures: RateLimiter;
	private trustedOrigin: string;

	constructor(
		config: Pick<Config, "externalUrl" | "signupKeyFailures" | "signupKeyWindowSeconds">,
		/** The client's address (client-address.ts). */
		private address: (req: IncomingMessage) => string,
	) {
		this.failures = new RateLimiter(config.signupKeyFailures, config.signupKeyWindowSeconds * 1000, () => clock.nowMs());
		this.trustedOrigin = new URL(config.externalUrl).origin;
	}

	/** Throws RATE_LIMIT_HIT for an address out of tries, CSRF_FAILED for a cross-site POST. */
	check(req: IncomingMessage): void {
		if (this.failures.enabled) {
			const wait = this.failures.waitFor(this.address(req));
			if (wait !== undefined) throw rateLimited(wait);
		}
		if (req.method === "POST") {
			const reason = crossSiteReason(req, this.trustedOrigin);
			if (reason !== undefined) throw csrfFailed(reason);
		}
	}

	/** Counts a key that did not open the page (any 4xx of the key's lookup) against the address. */
	keyFailed(req: IncomingMessage, status: number): void {
		if (this.failures.enabled && status >= 400 && status < 500) this.failures.hit(this.address(req));
	}
}

/**
 * The start of every guarded page: whether a POST came from an API client (who gets JSON back),
 * or undefined once the guard refused the request (the refusal is answered).
 */
export function admit(req: IncomingMessage, res: ServerResponse, guard: PageGuard): { asJson: boolean } | undefined {
	const asJson = req.method === "POST" && wantsJson(req);
	try {
		guard.check(req);
	} catch (err) {
		sendRefusal(res, err, asJson);
		return undefined;
	}
	return { asJson };
}

/** Answers check()'s refusal: Zulip's JSON error to API clients, else a page saying what to do. */
export function sendRefusal(res: ServerResponse, err: unknown, asJson: boolean): void {
	const r = renderError(err);
	if (asJson) return sendPageJson(res, r.status, r.body, r.headers);
	if (r.status === 429) {
		const wait = Math.ceil(Number(r.body["retry-after"]) || 1);
		return sendPage(res, 429, "Rate limit exceeded", `<p>You have exceeded the limit for how often a user can perform this action.</p><p>Please try again in ${wait} seconds.</p>`, r.headers);
	}
	if (r.status === 403) {
		return sendPage(res, 403, "Forbidden", `<p>This form was sent from another site, so it was refused. Open the link from your email and send the form from there.</p><p>${escapeHtml(r.body.msg)}</p>`, r.headers);
	}
	return sendPage(res, r.status, "Something went wrong", `<p>${escapeHtml(r.body.msg)}</p>`, r.headers);
}
