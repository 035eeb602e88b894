// What the new user and their inviter are told: the invitation email, Welcome Bot's greeting
// (Zulip's wording, onboarding.py), and Notification Bot's note to the inviter (create_user.py).
import type { Email } from "../../shared/email";
import { isAdmin } from "../../shared/roles";

export function invitationEmail(o: { to: string; realmName: string; realmUrl: string; referrer: string; link: string; expiresAt: number | null }): Email {
	const host = new URL(o.realmUrl).host;
	const until = o.expiresAt === null ? "" : ` The link works until ${new Date(o.expiresAt * 1000).toUTCString()}.`;
	return {
		from: `noreply@${host}`,
		to: o.to,
		subject: `${o.referrer} invited you to join ${o.realmName}`,
		body: `Hi,\n\n${o.referrer} invited you to join ${o.realmName} (${o.realmUrl}).\n\nTo create your account, open this link:${until}\n\n${o.link}\n`,
	};
}

/** The confirmation a reusable link sends to the address given on its form. */
export function confirmationEmail(o: { to: string; realmName: string; realmUrl: string; link: string; expiresAt: number | null }): Email {
	const until = o.expiresAt === null ? "" : ` The link works until ${new Date(o.expiresAt * 1000).toUTCString()}.`;
	return {
		from: `noreply@${new URL(o.realmUrl).host}`,
		to: o.to,
		subject: `Confirm your email address for ${o.realmName}`,
		body: `Hi,

To finish joining ${o.realmName} (${o.realmUrl}), open this link:${until}

${o.link}

If you did not ask for this, ignore this message.
`,
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
