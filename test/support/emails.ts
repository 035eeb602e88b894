// The emails a test server wrote (shared/email.ts writes each as a file into EMAIL_DIR, which the
// test servers set to `<data dir>/emails`).
import fs from "node:fs";
import path from "node:path";

export interface Mail {
	to: string;
	subject: string;
	body: string;
	/** The first link to the test organization (http://chat.test) in it, if any. */
	link: string | null;
	/** The whole message as written. */
	text: string;
}

/** Every email written into `dataDir`'s outbox, oldest first; `to` keeps only those to that address. */
export function sentEmails(dataDir: string, to?: string): Mail[] {
	const dir = path.join(dataDir, "emails");
	if (!fs.existsSync(dir)) return [];
	const all = fs
		.readdirSync(dir)
		.sort()
		.map((f) => {
			const text = fs.readFileSync(path.join(dir, f), "utf8");
			const header = (name: string) => new RegExp(`^${name}: (.*)$`, "m").exec(text)?.[1]?.trimEnd() ?? "";
			return { to: header("To"), subject: header("Subject"), body: text.split("\r\n\r\n").slice(1).join("\r\n\r\n"), link: /(http:\/\/chat\.test\/\S+)/.exec(text)?.[1] ?? null, text };
		});
	return to === undefined ? all : all.filter((m) => m.to === to);
}

/** The link in the newest email to `to`; throws when there is none. */
export function lastLinkTo(dataDir: string, to: string): string {
	const link = sentEmails(dataDir, to).at(-1)?.link;
	if (!link) throw new Error(`no email with a link to ${to}`);
	return link;
}
