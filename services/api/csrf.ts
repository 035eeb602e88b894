// Cross-site request forgery: a form POST to the sign-up pages must come from a page of this
// server (EXTERNAL_URL's origin), as Django's CsrfViewMiddleware checks Zulip's forms by Origin
// and Referer. The decision, case by case:
// - Origin present (every current browser sends it on a POST): it must be EXTERNAL_URL's origin.
//   `null` (a sandboxed frame, a file, a no-referrer page) is foreign too.
// - No Origin, a Referer (older browsers): the Referer's origin must be EXTERNAL_URL's.
// - Neither: not a browser acting for someone, or one we cannot check. Refused, except a body
//   sent as `Content-Type: application/json`: that is how API clients post these forms (README),
//   and a browser cannot send it to another site without a CORS preflight, which the gateway never
//   grants. A form-encoded POST without either header is refused.
// The pages set Referrer-Policy same-origin (html-page.ts), so their own posts keep both headers.
import type { IncomingMessage } from "node:http";

const originOf = (value: string) => (URL.canParse(value) ? new URL(value).origin : value);

/** Why `req` (a POST) is refused as cross-site, Django's reason wording; undefined when it may pass. */
export function crossSiteReason(req: IncomingMessage, trustedOrigin: string): string | undefined {
	const { origin, referer } = req.headers;
	if (origin !== undefined) {
		return originOf(origin) === trustedOrigin ? undefined : `Origin checking failed - ${origin} does not match any trusted origins.`;
	}
	if (referer !== undefined) {
		if (!URL.canParse(referer)) return "Referer checking failed - Referer is malformed.";
		return new URL(referer).origin === trustedOrigin ? undefined : `Referer checking failed - ${referer} does not match any trusted origins.`;
	}
	return /^application\/json\s*(;|$)/i.test(req.headers["content-type"] ?? "") ? undefined : "Referer checking failed - no Referer.";
}
