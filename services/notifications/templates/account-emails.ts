// The emails about an account: invitation, address confirmations, password reset and the new
// account's details. Subjects and facts are Zulip's (templates/zerver/emails/<name>.{subject.txt,txt}),
// with the organization named where Zulip names the product.
import type { EmailTemplateName, EmailTemplates } from "../../../shared/email";
import { compose, expiry, type Footer, type Rendered, type UnsubscribeType } from "./layout";

type Renderer<K extends EmailTemplateName> = (c: EmailTemplates[K], footer: Footer) => Rendered;

const host = (url: string) => new URL(url).host;

export const ACCOUNT_EMAILS: { [K in EmailTemplateName]: Renderer<K> } = {
	invitation: (c) =>
		compose(`${c.referrer_name} has invited you to join ${c.realm_name}`, c.realm_name, [
			"Hi there,",
			`${c.referrer_name} (${c.referrer_email}) wants you to join them in ${c.realm_name} (${c.realm_url}), on Zulip -- the team communication tool designed for productivity.`,
			`To get started, click the link below.${expiry(c.expires_at)}`,
			{ link: c.link, label: "Complete registration" },
		]),

	confirm_registration: (c) =>
		compose(`Activate your ${c.realm_name} account`, c.realm_name, [
			"Hello there.",
			`You recently signed up for ${c.realm_name} (${c.realm_url}). Awesome!`,
			`To complete signup, please click here:${expiry(c.expires_at)}`,
			{ link: c.link, label: "Complete registration" },
			"If you did not ask for this, ignore this message.",
		]),

	confirm_new_email: (c) =>
		compose(`Verify your new email address for ${host(c.realm_url)}`, c.realm_name, [
			`Hi ${c.full_name},`,
			`We received a request to change the email address for the account on ${c.realm_url} (${c.realm_name}) from ${c.old_email} to ${c.new_email}. To confirm this change, please click below within 24 hours:`,
			{ link: c.link, label: "Confirm email change" },
			"If you did not request this change, please contact the organization's administrators immediately.",
		]),

	password_reset: (c) =>
		compose(`Password reset request for ${c.realm_name}`, c.realm_name, [
			`Psst. Word on the street is that you need a new password, ${c.email}.`,
			`It's all good. Follow the link below within three days and we'll take care of the rest (${c.realm_name}, ${c.realm_url}):`,
			{ link: c.link, label: "Reset password" },
			"If you did not ask for this, ignore this message: your password stays as it is.",
		]),

	password_reset_no_account: (c) =>
		compose(`Password reset request for ${c.realm_name}`, c.realm_name, [
			c.deactivated
				? `Someone (possibly you) requested a password reset email for ${c.email} on ${c.realm_url}, but the account ${c.email} in ${c.realm_name} is deactivated.`
				: `Someone (possibly you) requested a password reset email for ${c.email} on ${c.realm_url}, but you do not have an active account in ${c.realm_name}.`,
			"If you did not ask for this, ignore this message.",
		]),

	account_registered: (c, footer) =>
		compose(
			`${c.realm_name} on Zulip: Your new account details`,
			c.realm_name,
			[
				"Welcome to Zulip!",
				`You've joined the Zulip organization ${c.realm_name}.`,
				"You will use the following info to log into the Zulip web, mobile and desktop apps:",
				{ items: [`Organization URL: ${c.realm_url}`, `Your account email: ${c.email}`] },
				// Zulip's own guides: this server serves no /help pages.
				`If you are new to Zulip, check out our Getting started guide (https://zulip.com/help/getting-started-with-zulip)!` +
					(c.is_admin ? " We also have a guide for Setting up your organization (https://zulip.com/help/moving-to-zulip)." : ""),
				"If you have any questions, please contact this organization's administrators.",
			],
			footer,
		),
};

/** Which of these carry an unsubscribe link, and of what type (the new-login email's is "login"). */
export const UNSUBSCRIBABLE: Partial<Record<EmailTemplateName, UnsubscribeType>> = { account_registered: "welcome" };

/** Renders a request's template (its type checked against its context by EmailRequest). */
export function renderAccountEmail<K extends EmailTemplateName>(template: K, context: EmailTemplates[K], footer: Footer): Rendered {
	return (ACCOUNT_EMAILS[template] as Renderer<K>)(context, footer);
}
