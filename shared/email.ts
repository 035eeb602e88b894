// Outgoing email. The backend writes each message as a file into a folder (as Django's file
// backend does), which is what development, tests and a relay that picks files up all want.
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { clock } from "./clock";

export interface Email {
	to: string;
	from: string;
	subject: string;
	body: string;
}

/** Writes `email` into `dir` as an RFC 5322 message; returns the file's path. */
export function sendEmail(dir: string, email: Email): string {
	fs.mkdirSync(dir, { recursive: true });
	const date = new Date(clock.nowMs());
	const file = path.join(dir, `${date.toISOString().replace(/[:.]/g, "-")}-${randomBytes(4).toString("hex")}.eml`);
	const header = (s: string) => s.replace(/[\r\n]+/g, " ");
	const text = [
		`From: ${header(email.from)}`,
		`To: ${header(email.to)}`,
		`Subject: ${header(email.subject)}`,
		`Date: ${date.toUTCString()}`,
		"MIME-Version: 1.0",
		"Content-Type: text/plain; charset=utf-8",
		"",
		email.body,
		"",
	].join("\r\n");
	fs.writeFileSync(file, text, { mode: 0o600 });
	return file;
}
