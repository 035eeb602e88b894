// The addresses of POST /invites: how the field is split, and which addresses Zulip refuses and
// why (do_invite_users): an invalid address stops the whole request; an address that already
// has an account is skipped while the others are invited.
import { LIMITS } from "../../shared/version";
import type { InviteContext } from "../../shared/actions";

export type Refusal = [email: string, reason: string, deactivated: boolean];

/** Zulip's cross-realm bots' addresses (ours: services/users/accounts/system-bots.ts). */
const SYSTEM_BOT_EMAILS = new Set(["notification-bot@zulip.com", "welcome-bot@zulip.com"]);

const EMAIL = /^[^\s@"<>()[\]\\,;:\p{Cc}]+@([A-Za-z0-9-]+\.)+[A-Za-z0-9-]+$/u;

/**
 * Zulip's get_invitee_emails_set: split on commas and newlines, `Name <address>` reduced to the
 * address, trimmed, each once. Empty entries (a trailing comma or newline) are dropped.
 */
export function parseInvitees(raw: string): string[] {
	const out = new Set<string>();
	for (let part of raw.split(/[,\n]/)) {
		const named = /<(.*)>/.exec(part);
		if (named) part = named[1];
		const email = part.trim();
		if (email) out.add(email);
	}
	return [...out];
}

export function isValidEmail(email: string): boolean {
	return email.length <= LIMITS.max_email_length && EMAIL.test(email);
}

/** Invalid addresses (errors) and addresses already in use (skipped), in Zulip's words. */
export function classify(emails: string[], accounts: InviteContext["accounts"]): { valid: string[]; errors: Refusal[]; skipped: Refusal[] } {
	const existing = new Map(accounts.map((a) => [a.email.toLowerCase(), a]));
	const valid: string[] = [];
	const errors: Refusal[] = [];
	const skipped: Refusal[] = [];
	for (const email of emails) {
		const key = email.toLowerCase();
		if (!isValidEmail(email)) errors.push([email, "Invalid address.", false]);
		else if (SYSTEM_BOT_EMAILS.has(key)) skipped.push([email, `${email} is reserved for system bots`, false]);
		else if (existing.get(key)?.is_active) skipped.push([email, "Already has an account.", false]);
		else if (existing.has(key)) skipped.push([email, "Account has been deactivated.", true]);
		else valid.push(email);
	}
	return { valid, errors, skipped };
}
