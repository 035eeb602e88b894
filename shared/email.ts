// The emails other services ask the notifications service to send (notifications.sendEmail): which
// of Zulip's emails, to whom, and the facts it states. The notifications service renders them
// (services/notifications/templates/), keeps them in its outbox and delivers them.

/** The facts every email states: the organization's name and address. */
export interface RealmFacts {
	realm_name: string;
	realm_url: string;
}

/** Each email by template name (Zulip's templates/zerver/emails/<name>), with what it shows. */
export interface EmailTemplates {
	/** An invitation (invitation.txt): the link creates the account; `expires_at` UNIX seconds or null. */
	invitation: RealmFacts & { referrer_name: string; referrer_email: string; link: string; expires_at: number | null };
	/** The address given on a reusable link's form, to confirm it (confirm_registration.txt). */
	confirm_registration: RealmFacts & { link: string; expires_at: number | null };
	/** A change of email address, to the new address (confirm_new_email.txt). */
	confirm_new_email: RealmFacts & { full_name: string; old_email: string; new_email: string; link: string };
	/** A password reset link (password_reset.txt). */
	password_reset: RealmFacts & { email: string; link: string };
	/** A password reset asked for an address without an active account here (password_reset.txt's no_account_in_realm). */
	password_reset_no_account: RealmFacts & { email: string; deactivated: boolean };
	/** The new account's details, sent on sign-up (account_registered.txt). */
	account_registered: RealmFacts & { full_name: string; email: string; is_admin: boolean };
}

export type EmailTemplateName = keyof EmailTemplates;

/** One email to send: a template with its facts, and the key that makes asking twice send it once. */
export type EmailRequest = {
	[K in EmailTemplateName]: {
		template: K;
		context: EmailTemplates[K];
		to: string;
		/** Unique per email: a call retried with the same key stores (and sends) the email once. */
		idempotency_key: string;
		/** The recipient's account, when there is one (its unsubscribe links need it). */
		user_id?: number;
	};
}[EmailTemplateName];
