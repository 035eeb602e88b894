// What the new user and their inviter are told: the invitation email and the new account's
// details (the notifications service renders and sends them), Welcome Bot's greeting (Zulip's
// wording, onboarding.py), and Notification Bot's note to the inviter (create_user.py).
import type { EmailRequest } from "../../shared/email";
import { isAdmin } from "../../shared/roles";

type Realm = { name: string; url: string };

/** An invitation email; `key` tells this sending from any other (a resend is another). */
export function invitationEmail(o: { to: string; realm: Realm; referrer: { full_name: string; email: string }; link: string; expiresAt: number | null; key: string }): EmailRequest {
	return {
		template: "invitation",
		to: o.to,
		idempotency_key: o.key,
		context: { realm_name: o.realm.name, realm_url: o.realm.url, referrer_name: o.referrer.full_name, referrer_email: o.referrer.email, link: o.link, expires_at: o.expiresAt },
	};
}

/** The confirmation a reusable link sends to the address given on its form. */
export function confirmationEmail(o: { to: string; realm: Realm; link: string; expiresAt: number | null; key: string }): EmailRequest {
	return { template: "confirm_registration", to: o.to, idempotency_key: o.key, context: { realm_name: o.realm.name, realm_url: o.realm.url, link: o.link, expires_at: o.expiresAt } };
}

/** The new account's details (Zulip's account_registered), once per account. */
export function accountRegisteredEmail(user: { user_id: number; email: string; full_name: string }, role: number, realm: Realm): EmailRequest {
	return {
		template: "account_registered",
		to: user.email,
		user_id: user.user_id,
		idempotency_key: `account-registered:${user.user_id}`,
		context: { realm_name: realm.name, realm_url: realm.url, full_name: user.full_name, email: user.email, is_admin: isAdmin(role) },
	};
}

/** Welcome Bot's first direct message to a new user (administrators also get the setup guide). */
export function welcomeContent(role: number): string {
	const setup = isAdmin(role) ? " We also have a guide for [moving your organization to Zulip](/help/moving-to-zulip)." : "";
	return `Hello, and welcome to Zulip!👋\n\nTo learn more, check out our [getting started guide](/help/getting-started-with-zulip)!${setup}`;
}

/** The custom welcome text Welcome Bot sends next: the invitation's, else the organization's; "" none. */
export function customWelcome(invitationText: string | null, realmText: string): string {
	return invitationText ?? realmText;
}

/** Zulip's silent mention of the new user. */
export const referrerNote = (user: { user_id: number; full_name: string }) => `@_**${user.full_name}|${user.user_id}** accepted your invitation to join Zulip!`;
