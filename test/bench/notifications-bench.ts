// The missed-message figures of `npm run bench` (BENCH_ONLY=notifications): one node (every
// service, email into EMAIL_DIR, its sweep every second) and BENCH_NOTIFY_MEMBERS (default 100)
// members of one channel, generated into the store, their batching period BENCH_NOTIFY_PERIOD
// seconds (default Zulip's 120; the batches that fall due while an idle run lasts go out during
// it, the rest in the wait after it, which is not timed: a shorter period puts more of them in the
// run and folds fewer mentions into each email). Two runs of BENCH_NOTIFY_MENTIONS (default 10,000) POST /messages from
// BENCH_NOTIFY_CONNECTIONS (default 4) clients, each message mentioning one member in turn, in
// BENCH_NOTIFY_ROUNDS (default 2) rounds, each with both, in turns of order (without-with,
// with-without), after 200 warm-up messages, so the machine's other load falls on both alike:
//   without: the members active on presence (no email is due);
//   with:    the same members idle (presence cleared): every mention a notice, batched into emails;
//            after each round, the wait until its last batch went, timed too for a second figure
//            (messages over the time until the last email: the emails' whole work, which a period
//            longer than the run would otherwise leave out).
// Figures: messages/s of each run and their ratio (the goal: with ≥ 0.9 × without); the CPU (node
// and store, from /proc) per message of each, the idle runs' counted until their last email went
// (the emails' whole work, without the batching period's idle wait that the drained rate counts);
// then how long
// after the last message the last batch went, the emails written, and the check that every
// mention is quoted in exactly one email to the member it mentions (its text part), none twice,
// none lost.
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import mongoose from "mongoose";
import { freePort } from "../../shared/store";
import { cpuNs, processTree } from "./cpu-time";
import { apiClient, formatTable, generateSubscribers, ownerAuth, sleep, startBenchServer, type Api } from "./bench-support";

export const NOTIFY_SETTINGS = ["BENCH_NOTIFY_MEMBERS", "BENCH_NOTIFY_MENTIONS", "BENCH_NOTIFY_CONNECTIONS", "BENCH_NOTIFY_PERIOD", "BENCH_NOTIFY_ROUNDS"];

const MEMBERS = Number(process.env.BENCH_NOTIFY_MEMBERS ?? 100);
const MENTIONS = Number(process.env.BENCH_NOTIFY_MENTIONS ?? 10_000);
const CONNECTIONS = Number(process.env.BENCH_NOTIFY_CONNECTIONS ?? 4);
/** Zulip's default batching period. */
const PERIOD = Number(process.env.BENCH_NOTIFY_PERIOD ?? 120);
const ROUNDS = Number(process.env.BENCH_NOTIFY_ROUNDS ?? 2);
const WARMUP = 200;
/** The emails of a run not written by then are reported as they stand. */
const DRAIN_MS = 600_000;
const CHANNEL = "notify";

export interface NotifyFigure {
	without: number;
	with: number;
	ratio: number;
	/** Messages/s of the idle runs counted until their last email went, and its ratio to without. */
	withDrained: number;
	drainedRatio: number;
	/** Each round's messages/s, without and with. */
	rounds: Array<{ without: number; with: number }>;
	/** CPU ms (node + store) per message: without; with, until the last email went; and their ratio. */
	cpu: { without: number; with: number; ratio: number };
	/** Seconds from the last message to the last email. */
	drainSeconds: number;
	emails: number;
	/** Mentions quoted in some email, once each. */
	quoted: number;
	failures: string[];
}

/** Messages `from`..`to` - 1 from `CONNECTIONS` clients, message i mentioning member i mod MEMBERS; answers the seconds taken. */
async function sendMentions(api: Api, members: number[], run: string, range: [number, number], failures: string[]): Promise<number> {
	let next = range[0];
	let failed = 0;
	const started = process.hrtime.bigint();
	await Promise.all(
		Array.from({ length: CONNECTIONS }, async () => {
			for (let i = next++; i < range[1]; i = next++) {
				const member = members[i % members.length];
				await api("POST", "/messages", { type: "stream", to: CHANNEL, topic: `topic ${i % 3}`, content: `@**Bench ${member}** ${run} ${i}` }).catch(() => failed++);
			}
		}),
	);
	if (failed) failures.push(`${run}: ${failed} messages refused`);
	return Number(process.hrtime.bigint() - started) / 1e9;
}

/**
 * The mention numbers quoted in the text parts of the emails in `dir` (`> @**Bench N** with K`),
 * counting each only in an email to the member it mentions (`benchN@bench.test`): the others'
 * emails quote it too, as context before their own mention (earlier messages of the topic).
 */
function quotedMentions(dir: string): { emails: number; counts: Map<number, number> } {
	const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".eml")) : [];
	const counts = new Map<number, number>();
	for (const f of files) {
		// Quoted-printable soft breaks joined; the lines are short and ASCII.
		const raw = fs.readFileSync(path.join(dir, f), "utf8").replace(/=\r?\n/g, "");
		const to = /^To: .*?bench(\d+)@bench\.test/im.exec(raw)?.[1];
		const text = raw.split(/Content-Type: text\/html/)[0];
		for (const m of text.matchAll(/^> @\*\*Bench (\d+)\*\* with (\d+)\r?$/gm)) {
			if (m[1] === to) counts.set(Number(m[2]), (counts.get(Number(m[2])) ?? 0) + 1);
		}
	}
	return { emails: files.length, counts };
}

export async function notifyFigures(common: Record<string, string>, work: string, storePid?: number): Promise<NotifyFigure> {
	const prefix = `b${randomBytes(4).toString("hex")}`;
	const dataDir = path.join(work, "notifications");
	const emailDir = path.join(dataDir, "emails");
	const node = await startBenchServer({ ...common, DB_PREFIX: prefix, DATA_DIR: dataDir, PORT: String(await freePort()), SERVICES: "", TRANSPORTER: "", EMAIL_DIR: emailDir, EMAIL_SWEEP_SECONDS: "1" });
	const client = await new mongoose.mongo.MongoClient(common.MONGO_URL).connect();
	const failures: string[] = [];
	try {
		const api = apiClient(node.base, ownerAuth(dataDir));
		const { userIds } = await generateSubscribers(api, client, prefix, CHANNEL, MEMBERS);
		const users = client.db(`${prefix}_users`);
		// Their batching period; and no auto-follow of the topics they are mentioned in (Zulip's default
		// would make every later message in those topics a followed-topic notice for them).
		await users
			.collection("users")
			.updateMany({ _id: { $in: userIds } } as never, { $set: { "settings.email_notifications_batching_period_seconds": PERIOD, "settings.automatically_follow_topics_where_mentioned": false } });
		// Active until well after the run while present (presence in the future reads as active).
		const later = new Date(Date.now() + 3600_000);
		const realm_id = (await users.collection("users").findOne({ _id: userIds[0] } as never))!.realm_id as number;
		const notices = client.db(`${prefix}_notifications`).collection("missed_message_notices");

		const pids = processTree([node.proc.child.pid!, ...(storePid ? [storePid] : [])]);
		const cpu = { without: 0, with: 0 };
		const pending = () => notices.countDocuments({ state: { $in: ["pending", "batched"] } });
		// Rounds of each, alternating, so the machine's other load falls on both alike.
		const seconds = { without: 0, with: 0, drained: 0 };
		const rounds: NotifyFigure["rounds"] = [];
		let drainSeconds = 0;
		const chunk = Math.ceil(MENTIONS / ROUNDS);
		const present = () => users.collection("user_presence").insertMany(userIds.map((_id) => ({ _id, realm_id, last_active_time: later, last_connected_time: later, last_update_id: 0 })) as never[]);
		const absent = () => users.collection("user_presence").deleteMany({ _id: { $in: userIds } } as never);
		const runWithout = async (r: number, range: [number, number]) => {
			await present();
			const cpuBefore = cpuNs(pids);
			const took = await sendMentions(api, userIds, "without", range, failures);
			cpu.without += cpuNs(pids) - cpuBefore;
			seconds.without += took;
			rounds[r].without = (range[1] - range[0]) / took;
			await sleep(1000);
			const strays = await pending();
			if (strays) failures.push(`round ${r + 1}: ${strays} email notices for members who were active`);
			await absent();
		};
		const runWith = async (r: number, range: [number, number]) => {
			const cpuBefore = cpuNs(pids);
			const took = await sendMentions(api, userIds, "with", range, failures);
			seconds.with += took;
			rounds[r].with = (range[1] - range[0]) / took;
			const sentAt = Date.now();
			const end = sentAt + DRAIN_MS;
			while (Date.now() < end && (await pending()) > 0) await sleep(200);
			cpu.with += cpuNs(pids) - cpuBefore;
			const drain = (Date.now() - sentAt) / 1000;
			seconds.drained += took + drain;
			drainSeconds = Math.max(drainSeconds, drain);
		};
		// Warm-up, not counted: the first messages of a fresh node are slower.
		await present();
		await sendMentions(api, userIds, "warm-up", [0, WARMUP], failures);
		await absent();
		for (let r = 0; r < ROUNDS; r++) {
			const range: [number, number] = [r * chunk, Math.min(MENTIONS, (r + 1) * chunk)];
			rounds.push({ without: 0, with: 0 });
			// Rounds in turn without-with and with-without, so neither always comes first.
			process.stderr.write(`notifications, round ${r + 1} of ${ROUNDS}: ${range[1] - range[0]} mentions of ${r % 2 ? "idle members, then of active ones" : "active members, then of idle ones"}...\n`);
			if (r % 2) {
				await runWith(r, range);
				await runWithout(r, range);
			} else {
				await runWithout(r, range);
				await runWith(r, range);
			}
		}
		const left = await pending();
		if (left) failures.push(`${left} notices not sent after ${DRAIN_MS / 1000} s`);
		const without = MENTIONS / seconds.without;
		const withLoad = MENTIONS / seconds.with;
		const { emails, counts } = quotedMentions(emailDir);
		const twice = [...counts.values()].filter((c) => c > 1).length;
		if (twice) failures.push(`${twice} mentions quoted in more than one email`);
		if (counts.size < MENTIONS) failures.push(`${MENTIONS - counts.size} mentions in no email`);
		const withDrained = MENTIONS / seconds.drained;
		const cpuMs = { without: cpu.without / 1e6 / MENTIONS, with: cpu.with / 1e6 / MENTIONS };
		return { without, with: withLoad, ratio: withLoad / without, withDrained, drainedRatio: withDrained / without, rounds, cpu: { ...cpuMs, ratio: cpuMs.with / cpuMs.without }, drainSeconds, emails, quoted: counts.size, failures };
	} catch (err) {
		process.stderr.write(`the server's last words:\n${node.proc.output().slice(-4000)}\n`);
		throw err;
	} finally {
		await client.close();
		await node.stop();
	}
}

export function notifyTable(f: NotifyFigure, info: { command: string; cores: number; store: string }): string {
	const rows = [
		["run", "POST /messages per s"],
		["mentions of active members (no notices)", f.without.toFixed(0)],
		["mentions of idle members (notices, emails)", f.with.toFixed(0)],
		["ratio with / without (goal ≥ 0.90)", f.ratio.toFixed(3)],
		["idle, timed until its last email went", f.withDrained.toFixed(0)],
		["ratio idle until last email / without", f.drainedRatio.toFixed(3)],
		...f.rounds.map((r, i) => [`round ${i + 1}: without / with`, `${r.without.toFixed(0)} / ${r.with.toFixed(0)}`]),
		["CPU ms per message (node + store), without", f.cpu.without.toFixed(2)],
		["CPU ms per message, idle until its last email went", f.cpu.with.toFixed(2)],
		["CPU ratio idle until last email / without", f.cpu.ratio.toFixed(3)],
	];
	return [
		`Missed-message emails: ${MENTIONS} mentions, ${MEMBERS} members, batching period ${PERIOD} s, ${CONNECTIONS} clients (${info.cores} cores, store: ${info.store})`,
		`command: ${info.command}`,
		"",
		formatTable(rows),
		"",
		`emails written: ${f.emails}; mentions quoted once: ${f.quoted} of ${MENTIONS}; last email ${f.drainSeconds.toFixed(1)} s after the last message`,
		...(f.failures.length ? ["", "failures:", ...f.failures.map((m) => `  ${m}`)] : []),
	].join("\n");
}
