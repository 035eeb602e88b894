// A real SMTP server in the test process (smtp-server, from the nodemailer project): it takes what
// the notifications service sends when SMTP_URL points at it, with the URL's credentials, and keeps
// each message parsed (mailparser). It can be told to refuse messages, as a server that is down
// for mail would, counting the attempts it refused.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { simpleParser, type ParsedMail } from "mailparser";
import { eventually } from "./eventually";

export interface Received {
	/** The envelope's recipients. */
	to: string[];
	mail: ParsedMail;
	raw: string;
}

export interface TestSmtp {
	/** SMTP_URL for the server, with its credentials. */
	url: string;
	received: Received[];
	/** Messages refused, by Message-ID (each refusal is one attempt). */
	refused: string[];
	/** While true, every message is answered 451 (a temporary failure). */
	refusing: boolean;
	/** Waits for the messages to `to` until `count` have arrived; answers them. */
	waitFor(to: string, count?: number): Promise<Received[]>;
	stop(): Promise<void>;
}

const USER = "chat";
const PASSWORD = "smtp-secret";

export async function startSmtp(): Promise<TestSmtp> {
	const state = { received: [] as Received[], refused: [] as string[], refusing: false };
	const server = new SMTPServer({
		disabledCommands: ["STARTTLS"],
		allowInsecureAuth: true,
		logger: false,
		onAuth(auth, _session, cb) {
			if (auth.username === USER && auth.password === PASSWORD) cb(null, { user: USER });
			else cb(new Error("Invalid username or password"));
		},
		onData(stream, session, cb) {
			const chunks: Buffer[] = [];
			stream.on("data", (c: Buffer) => chunks.push(c));
			stream.on("end", () => {
				const raw = Buffer.concat(chunks).toString("utf8");
				simpleParser(raw).then(
					(mail) => {
						if (state.refusing) {
							state.refused.push(mail.messageId ?? "");
							cb(Object.assign(new Error("Requested action aborted: try again later"), { responseCode: 451 }));
							return;
						}
						state.received.push({ to: session.envelope.rcptTo.map((r) => r.address), mail, raw });
						cb();
					},
					(err: Error) => cb(err),
				);
			});
		},
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.server.address() as AddressInfo;
	return {
		url: `smtp://${USER}:${PASSWORD}@127.0.0.1:${port}`,
		get received() {
			return state.received;
		},
		get refused() {
			return state.refused;
		},
		get refusing() {
			return state.refusing;
		},
		set refusing(v: boolean) {
			state.refusing = v;
		},
		waitFor: (to, count = 1) =>
			eventually(async () => {
				const mine = state.received.filter((r) => r.to.includes(to));
				return mine.length >= count ? mine : undefined;
			}, `${count} email(s) to ${to}`),
		stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
