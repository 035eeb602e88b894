// Requests to the push notification bouncer, as Zulip's send_to_push_bouncer
// (zerver/lib/remote_server.py): `<PUSH_NOTIFICATION_BOUNCER_URL>/api/v1/remotes/<endpoint>`, HTTP
// basic auth with ZULIP_ORG_ID and ZULIP_ORG_KEY, User-Agent `ZulipServer/<version>`, a 30-second
// timeout; a form body (register, unregister) or JSON (notify, test_notification). Its outcomes,
// as Zulip classifies them: a network error or a 5xx is worth retrying later; a 4xx is the
// bouncer's refusal (its `msg`), the server's credentials being wrong (INVALID_ZULIP_SERVER) or the
// device unknown to it (INVALID_REMOTE_PUSH_DEVICE_TOKEN); any other status is unexpected.
import { createHash } from "node:crypto";
import { ZULIP_VERSION } from "../../../shared/version";

/** Zulip's PushDeviceToken kinds, the bouncer's `token_kind`. */
export const TOKEN_KIND = { apns: 1, fcm: 2 } as const;

/** Zulip's PushBouncerSession timeout. */
export const BOUNCER_TIMEOUT_MS = 30_000;

export interface BouncerSettings {
	url: string;
	orgId: string;
	orgKey: string;
}

export type BouncerFailure =
	/** Network error, timeout or 5xx: Zulip's PushNotificationBouncerRetryLaterError. */
	| "retry"
	/** A 4xx with the bouncer's message: a client error (Zulip's JsonableError(msg)). */
	| "refused"
	/** INVALID_REMOTE_PUSH_DEVICE_TOKEN from push/test_notification. */
	| "unknown_device"
	/** Wrong credentials (INVALID_ZULIP_SERVER) or an unexpected answer: Zulip's PushNotificationBouncerError. */
	| "server";

export class BouncerError extends Error {
	constructor(
		message: string,
		readonly failure: BouncerFailure,
		readonly code: string | null = null,
	) {
		super(message);
		this.name = "BouncerError";
	}
}

export type BouncerBody = { form: Record<string, string | number> } | { json: Record<string, unknown> };

function encode(body: BouncerBody): { type: string; data: string } {
	if ("json" in body) return { type: "application/json", data: JSON.stringify(body.json) };
	const form = new URLSearchParams(Object.entries(body.form).map(([k, v]): [string, string] => [k, String(v)]));
	return { type: "application/x-www-form-urlencoded", data: form.toString() };
}

/** One request; answers the bouncer's JSON, or throws a BouncerError. */
export async function sendToBouncer(s: BouncerSettings, endpoint: string, body: BouncerBody): Promise<Record<string, unknown>> {
	const url = new URL(`/api/v1/remotes/${endpoint}`, s.url).toString();
	const { type, data } = encode(body);
	let res: Response;
	let text: string;
	try {
		res = await fetch(url, {
			method: "POST",
			body: data,
			redirect: "manual",
			signal: AbortSignal.timeout(BOUNCER_TIMEOUT_MS),
			headers: {
				"Content-Type": type,
				"User-Agent": `ZulipServer/${ZULIP_VERSION}`,
				Authorization: `Basic ${Buffer.from(`${s.orgId}:${s.orgKey}`).toString("base64")}`,
			},
		});
		text = await res.text();
	} catch (err) {
		const name = (err as Error).name === "TimeoutError" ? "Timeout" : "ConnectionError";
		throw new BouncerError(`${name} while trying to connect to push notification bouncer`, "retry");
	}
	if (res.status >= 500) throw new BouncerError("Received 500 from push notification bouncer", "retry");
	let parsed: Record<string, unknown> | null = null;
	try {
		const v: unknown = JSON.parse(text);
		if (v && typeof v === "object" && !Array.isArray(v)) parsed = v as Record<string, unknown>;
	} catch {
		parsed = null;
	}
	if (res.status >= 400) {
		const msg = typeof parsed?.msg === "string" ? parsed.msg : null;
		const code = typeof parsed?.code === "string" ? parsed.code : null;
		if (msg === null) throw new BouncerError(`Push notification bouncer returned status ${res.status} without a message`, "server", code);
		if (code === "INVALID_ZULIP_SERVER") throw new BouncerError(`Push notifications bouncer error: ${msg}`, "server", code);
		if (endpoint === "push/test_notification" && code === "INVALID_REMOTE_PUSH_DEVICE_TOKEN") throw new BouncerError(msg, "unknown_device", code);
		throw new BouncerError(msg, "refused", code);
	}
	if (res.status !== 200) throw new BouncerError(`Push notification bouncer returned unexpected status code ${res.status}`, "server");
	if (parsed === null) throw new BouncerError("Push notification bouncer answered without JSON", "server");
	return parsed;
}

/** A name-based UUID (RFC 4122 version 5) in the server's ZULIP_ORG_ID namespace. */
function uuidV5(name: string, namespace: string): string {
	const ns = Buffer.from(namespace.replace(/-/g, ""), "hex");
	const h = createHash("sha1").update(ns).update(name).digest().subarray(0, 16);
	h[6] = (h[6] & 0x0f) | 0x50;
	h[8] = (h[8] & 0x3f) | 0x80;
	const hex = h.toString("hex");
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Zulip's user.uuid and realm.uuid, which the bouncer keys registrations by: stable names derived
 * from the server's registration (nothing to store, the same on every replica).
 */
export const userUuid = (orgId: string, userId: number) => uuidV5(`user:${userId}`, orgId);
export const realmUuid = (orgId: string, realmId: number) => uuidV5(`realm:${realmId}`, orgId);
