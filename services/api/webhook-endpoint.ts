// POST /api/v1/external/<integration>: an incoming webhook from another tool (GitHub, Jira, ...),
// taken before moleculer-web so that its body reaches the integrations service as sent, whatever
// its content type (JSON, form-encoded, XML, multipart). The caller is the bot whose API key is in
// the URL (`api_key`, in the query or a form-encoded body), or, where no key is given, HTTP basic
// authentication, as Zulip's webhook_view and authenticated_rest_api_view accept.
import type { IncomingMessage } from "node:http";
import { apiError, missingArgument } from "../../shared/errors";
import { call, type Caller, type WebhookCall, type WebhookSender } from "../../shared/actions";
import { parseBasicAuth } from "./auth";

export const WEBHOOK_PREFIX = "/api/v1/external/";

export const isWebhookPath = (pathname: string): boolean => pathname.startsWith(WEBHOOK_PREFIX) && pathname.length > WEBHOOK_PREFIX.length;

/** The whole body, refused with 413 past `limit` bytes (a chunked body announces no length). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on("data", (chunk: Buffer) => {
			size += chunk.length;
			if (size > limit) {
				req.removeAllListeners("data");
				reject(apiError(413, "BAD_REQUEST", "Request body too large"));
				return;
			}
			chunks.push(chunk);
		});
		req.on("end", () => resolve(Buffer.concat(chunks)));
		req.on("error", reject);
	});
}

const isForm = (headers: IncomingMessage["headers"]) => (headers["content-type"] ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded");

/** A path segment decoded; one that is not valid percent-encoding stays as sent (and names no integration). */
function safeDecode(segment: string): string {
	try {
		return decodeURIComponent(segment);
	} catch {
		return segment;
	}
}

/** The request as the integrations service reads it: the query's last values, headers, the body as text. */
export function webhookCall(req: IncomingMessage, pathname: string, query: Record<string, string>, body: Buffer): WebhookCall {
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
	return { method: req.method ?? "POST", integration: safeDecode(pathname.slice(WEBHOOK_PREFIX.length).replace(/\/+$/, "")), query, headers, body: body.toString("utf8"), path: pathname };
}

/** The bot (or user) a webhook request comes from. */
export async function webhookSender(caller: Caller, req: IncomingMessage, query: Record<string, string>, body: Buffer): Promise<WebhookSender> {
	let apiKey: string | undefined = query.api_key;
	if (apiKey === undefined && isForm(req.headers)) apiKey = new URLSearchParams(body.toString("utf8")).get("api_key") ?? undefined;
	if (apiKey !== undefined) return call(caller, "users.authenticateWebhook", { api_key: apiKey });
	if (req.headers.authorization === undefined) throw missingArgument("api_key");
	const creds = parseBasicAuth(req.headers.authorization);
	// Beanstalk's form refuses an @ in the user name: Zulip asks for %40 there and decodes it.
	return call(caller, "users.authenticateWebhook", { api_key: creds.apiKey, email: creds.email.replaceAll("%40", "@") });
}
