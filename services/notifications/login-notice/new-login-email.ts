// The new-login email (Zulip's notify_new_login): who logged in, where from, when, and a link that
// turns these emails off.
import type { RealmFacts } from "../../../shared/email";
import { compose, type Footer, type Rendered } from "../templates/layout";

export interface NewLogin extends RealmFacts {
	email: string;
	/** Zulip's login_time: the user's local time, in their 12- or 24-hour format. */
	login_time: string;
	browser: string;
	os: string;
	ip: string;
}

export function newLoginEmail(c: NewLogin, footer: Footer): Rendered {
	return compose(
		`New login from ${c.browser} on ${c.os}`,
		`${c.realm_name} account security`,
		[
			"Hi,",
			`This is a notification that a new login to your account in ${c.realm_name} has just occurred.`,
			"Login details:",
			{ items: [`Server: ${c.realm_url}`, `Account: ${c.email}`, `Time: ${c.login_time}`, `Device: ${c.browser} on ${c.os}.`, `IP address: ${c.ip}`] },
			"If you do not recognize this login activity, or think your account may have been compromised, please contact the organization's administrators immediately.",
			"If you recognize this login activity, you can archive this notice.",
		],
		footer,
	);
}
