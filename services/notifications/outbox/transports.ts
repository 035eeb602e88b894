// Where an outbox email goes: an SMTP server (SMTP_URL, through nodemailer's connection pool), or,
// without one, a file per message in EMAIL_DIR (as Django's file backend; development, tests and a
// relay that picks files up). Both send the same RFC 5322 message: multipart text and HTML, the
// sender's name with NOREPLY_EMAIL, and the Message-ID the outbox derived from the key.
import fs from "node:fs";
import path from "node:path";
import nodemailer from "nodemailer";
import MailComposer from "nodemailer/lib/mail-composer";
import type Mail from "nodemailer/lib/mailer";
import type { Config } from "../../../shared/config";
import { clock } from "../../../shared/clock";
import type { OutboxEmailDoc } from "../models/outbox-email";

export interface Transport {
	/** "smtp" or "file", for logs. */
	kind: string;
	/** Whether a send is as cheap as a local write: then the caller's call waits for it (the file backend, as before the outbox). */
	inline: boolean;
	send(email: OutboxEmailDoc): Promise<void>;
	close(): void;
}

/** Timeouts of one SMTP exchange (ms): connecting, the server's greeting, and silence on the socket. */
export const SMTP_TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };

function message(email: OutboxEmailDoc, noreply: string): Mail.Options {
	return {
		from: { name: email.from_name, address: noreply },
		to: email.to,
		subject: email.subject,
		text: email.text,
		html: email.html,
		headers: email.headers,
		messageId: email.message_id,
		date: new Date(clock.nowMs()),
	};
}

function smtpTransport(url: string, noreply: string): Transport {
	// Settings in the URL's query (?pool=false&maxConnections=2...) win over these.
	const mailer = nodemailer.createTransport({ url, pool: true, maxConnections: 5, ...SMTP_TIMEOUTS });
	return {
		kind: "smtp",
		inline: false,
		async send(email) {
			await mailer.sendMail(message(email, noreply));
		},
		close: () => mailer.close(),
	};
}

function fileTransport(dir: string, noreply: string): Transport {
	return {
		kind: "file",
		inline: true,
		async send(email) {
			const raw = await new MailComposer(message(email, noreply)).compile().build();
			await fs.promises.mkdir(dir, { recursive: true });
			// Named by when it was asked for and by its key: a repeated send writes the same file.
			const id = email.message_id.replace(/^<|@.*$/g, "").slice(0, 16);
			const file = path.join(dir, `${new Date(email.created_at).toISOString().replace(/[:.]/g, "-")}-${id}.eml`);
			await fs.promises.writeFile(file, raw, { mode: 0o600 });
		},
		close: () => undefined,
	};
}

/** SMTP when SMTP_URL is set, else files in EMAIL_DIR. */
export function transportFor(config: Pick<Config, "smtpUrl" | "emailDir" | "noreplyEmail">): Transport {
	return config.smtpUrl ? smtpTransport(config.smtpUrl, config.noreplyEmail) : fileTransport(config.emailDir, config.noreplyEmail);
}
