// A `messages` replica killed with SIGKILL under 20 clients sending, reading and asking for their
// profile (test/support/replica-loss.ts), on two nats-servers: the project's (its client disconnect
// advisories exported to the services) and a plain one started without any configuration (as a
// managed NATS, a default Helm chart or a laptop runs it). Either way every node takes the dead
// node out of its registry within a fraction of a second (shared/node-loss.ts: the advisory, or a
// call to it left unanswered and a liveness probe nobody answers), so: every call is answered,
// reads with 200 (a read caught on the dead node is retried on another replica), sends with 200
// or, for a send caught on the dead node, 503; every send answered 200 is stored and nothing is
// stored that no call sent; and the clients go on at their pace. That last is measured against
// the same run: the calls answered in each of the two seconds after the kill against those in the
// second before (the heartbeat timeout alone left every client waiting 6 to 12 s: measured 0.46
// of the calls in the first second, those already on live replicas, and next to none after). The absolute figures (longest stall, time to a send's 503) are the
// bench's: `BENCH_ONLY=replica-loss npm run bench`.
import { answeredIn, CLIENTS, loseReplica, startLossCluster, type LossCluster, type LossRun } from "../support/replica-loss";
import { startNats } from "../support/processes";
import type { NatsServer } from "../support/cluster";

jest.setTimeout(240_000);

const WINDOW_MS = 1000;

describe.each([
	["the project's nats-server (disconnect advisories)", true],
	["a plain nats-server (no configuration)", false],
])("%s", (_name, advisories) => {
	let nats: NatsServer;
	let setup: LossCluster;
	let run: LossRun;

	beforeAll(async () => {
		nats = await startNats(undefined, { advisories });
		setup = await startLossCluster(advisories ? "replica-loss" : "replica-loss-plain", { natsUrl: nats.url });
		// Two seconds warm every node up; the baseline window is the second before the kill.
		run = await loseReplica(setup, 2000 + WINDOW_MS, 3 * WINDOW_MS);
	});

	afterAll(async () => {
		await setup?.cluster.stop();
		await nats?.proc.stop();
	});

	test("every call is answered: reads and GET /users/me 200, sends 200 or 503 SERVICE_UNAVAILABLE when caught on the lost replica", () => {
		const reads = run.calls.filter((c) => c.kind !== "send");
		const sends = run.calls.filter((c) => c.kind === "send");
		expect(reads.filter((c) => c.status !== 200)).toEqual([]);
		const refused = sends.filter((c) => c.status !== 200);
		expect(refused.filter((c) => c.status !== 503 || c.code !== "SERVICE_UNAVAILABLE")).toEqual([]);
		// Only the sends caught on the lost replica before it was found out: at most one per client.
		expect(refused.length).toBeLessThanOrEqual(CLIENTS);
	});

	test("every send answered 200 is stored, and every stored message is one a call sent and got an answer for", () => {
		const sends = run.calls.filter((c) => c.kind === "send");
		const acknowledged = sends.filter((c) => c.status === 200).map((c) => c.content!);
		expect(acknowledged.filter((content) => !run.stored.has(content))).toEqual([]);
		const answered = new Set(sends.map((c) => c.content!));
		expect([...run.stored.keys()].filter((content) => !answered.has(content))).toEqual([]);
	});

	test("the clients go on: the calls answered in each of the two seconds after the kill compare to those in the second before, GET /users/me included", () => {
		const before = answeredIn(run.calls, run.killedAt - WINDOW_MS, run.killedAt);
		// The first second also holds the calls that were on live replicas at the kill, answered
		// before their clients' next call got caught on the dead one: the second second is where
		// a client stuck until the heartbeat timeout shows.
		const first = answeredIn(run.calls, run.killedAt, run.killedAt + WINDOW_MS);
		const second = answeredIn(run.calls, run.killedAt + WINDOW_MS, run.killedAt + 2 * WINDOW_MS);
		console.log(`replica loss, advisories ${advisories}: calls answered in the second before the kill ${before.length}, in the first second after ${first.length}, in the next ${second.length}`);
		expect(before.length).toBeGreaterThan(CLIENTS / 2);
		expect(first.length / before.length).toBeGreaterThan(0.5);
		expect(second.length / before.length).toBeGreaterThan(0.5);
		expect(first.filter((c) => c.kind === "me").length).toBeGreaterThan(0);
		// Every client has answers in the second second: none is stuck.
		const served = new Set(second.map((c) => c.client));
		expect(CLIENTS - served.size).toBe(0);
	});
});
