// HTTP basic authentication (email and API key), with a short-lived cache of known credentials
// so that a request costs no call across the bus to authenticate (nor parsing: the cache is keyed
// by the Authorization header as sent). The users service broadcasts
// `users.changed` whenever a user's credentials, role or state change, and every gateway replica
// drops that user's entries at once; the TTL is only a backstop.
import { badRequest, unauthorized } from "../../shared/errors";
import type { Identity } from "../../shared/actions";

export interface Credentials {
	email: string;
	apiKey: string;
}

/** Parses `Authorization: Basic base64(email:api_key)` the way Zulip does. */
export function parseBasicAuth(header: string | undefined): Credentials {
	if (header === undefined) throw unauthorized("Missing authorization header for basic auth");
	const parts = header.trim().split(/\s+/);
	if (parts.length !== 2) throw unauthorized("Invalid authorization header for basic auth");
	if (parts[0].toLowerCase() !== "basic") throw badRequest("This endpoint requires HTTP basic authentication.");
	const decoded = Buffer.from(parts[1], "base64").toString("utf8");
	const fields = decoded.split(":");
	if (fields.length !== 2) throw unauthorized("Invalid authorization header for basic auth");
	return { email: fields[0].trim(), apiKey: fields[1].trim() };
}

export class CredentialCache {
	private entries = new Map<string, { identity: Identity; expires: number }>();
	private byUser = new Map<number, Set<string>>();
	/** Real time before which nothing is cached (see pause). */
	private pausedUntil = 0;

	constructor(
		private ttlMs: number,
		private now: () => number,
		private maxEntries = 100_000,
	) {}

	/** The identity a valid `Authorization` header (exactly as sent) stands for, if known. */
	get(k: string): Identity | undefined {
		const e = this.entries.get(k);
		if (!e) return undefined;
		if (e.expires < this.now()) {
			this.entries.delete(k);
			return undefined;
		}
		return e.identity;
	}

	set(k: string, identity: Identity): void {
		if (performance.now() < this.pausedUntil) return;
		if (this.entries.size >= this.maxEntries) this.clear();
		this.entries.set(k, { identity, expires: this.now() + this.ttlMs });
		let keys = this.byUser.get(identity.user_id);
		if (!keys) this.byUser.set(identity.user_id, (keys = new Set()));
		keys.add(k);
	}

	forget(userId: number): void {
		for (const k of this.byUser.get(userId) ?? []) this.entries.delete(k);
		this.byUser.delete(userId);
	}

	/**
	 * Forgets everything and caches nothing for `ms`. A node that has just joined (or this one,
	 * reconnected) may not know yet that this gateway listens to `users.changed`, and a change it
	 * broadcasts meanwhile would never reach this cache: so nothing is cached until discovery is over.
	 */
	pause(ms: number): void {
		this.clear();
		this.pausedUntil = performance.now() + ms;
	}

	clear(): void {
		this.entries.clear();
		this.byUser.clear();
	}
}
