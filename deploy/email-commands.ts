// email-dead-letters: the emails the notifications service could not deliver after their last
// attempt (docs/email.md), newest first, with why. It runs the notifications service in-process
// against the server's database (MONGO_URL, or the embedded store of DATA_DIR), sending nothing.
import { loadConfig } from "../shared/config";
import { startNode } from "../services";
import type { DeadLetter } from "../services/notifications/actions/outbox";
import { EXIT, UsageError, type Command } from "./command-line";

const when = (ms: number | null) => (ms === null ? "-" : new Date(ms).toISOString());

function listing(letters: DeadLetter[]): string {
	if (!letters.length) return "No dead letters.\n";
	return letters
		.map((l) => `${when(l.failed_at)}  ${l.kind}  to ${l.to}  "${l.subject}"\n  key ${l.idempotency_key}, ${l.attempts} attempts, asked for ${when(l.created_at)}\n  last error: ${l.last_error ?? "-"}\n`)
		.join("");
}

export const EMAIL_COMMANDS: Command[] = [
	{
		name: "email-dead-letters",
		args: "[--limit N] [--json]",
		summary: "lists the emails that could not be delivered (dead letters), newest first",
		options: { limit: { type: "string" }, json: { type: "boolean" } },
		async run({ values }) {
			const limit = values.limit === undefined ? 100 : Number(values.limit);
			if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new UsageError(`--limit must be a whole number from 1 to 10000, not "${String(values.limit)}"`);
			const config = loadConfig({ services: ["notifications"], transporter: "", logLevel: process.env.LOG_LEVEL ?? "warn" });
			const node = await startNode(config, "manage", { cli: true });
			try {
				const { dead_letters } = await node.broker.call<{ dead_letters: DeadLetter[] }, { limit: number }>("notifications.deadLetters", { limit });
				process.stdout.write(values.json ? `${JSON.stringify(dead_letters, null, 2)}\n` : listing(dead_letters));
				return EXIT.OK;
			} finally {
				await node.stop();
			}
		},
	},
];
