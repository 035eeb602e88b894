// A `messages` replica killed with SIGKILL under 20 clients sending and reading
// (test/support/replica-loss.ts). nats-server reports the dead node's connection closed and every
// node takes it out of its registry at once (shared/node-loss.ts), so: every call is answered,
// reads with 200 (a read caught on the dead node is retried on another replica), sends with 200
// or, for a send caught on the dead node, 503; every send answered 200 is stored and nothing is
// stored that no call sent; and the clients go on at their pace. That last is measured against
// the same run: the calls answered in the 3 s after the kill against those in the 3 s before (the
// heartbeat timeout alone left every client waiting 6 to 12 s, and almost no call was answered in
// that window). The absolute figures (longest stall, time to a send's 503) are the bench's:
// `BENCH_ONLY=replica-loss npm run bench`.
import { answeredIn, CLIENTS, loseReplica, startLossCluster, type LossCluster, type LossRun } from "../support/replica-loss";

jest.setTimeout(180_000);

const WINDOW_MS = 3000;

let setup: LossCluster;
let run: LossRun;

beforeAll(async () => {
	setup = await startLossCluster("replica-loss");
	// A first second warms every node up; the baseline window is the 3 s before the kill.
	run = await loseReplica(setup, 1000 + WINDOW_MS, WINDOW_MS);
});

afterAll(async () => {
	await setup?.cluster.stop();
});

test("every call is answered: reads 200, sends 200 or 503 SERVICE_UNAVAILABLE when caught on the lost replica", () => {
	const reads = run.calls.filter((c) => c.kind === "read");
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

test("the clients go on: the calls answered after the kill compare to those before, and every client gets answers", () => {
	const before = answeredIn(run.calls, run.killedAt - WINDOW_MS, run.killedAt);
	const after = answeredIn(run.calls, run.killedAt, run.killedAt + WINDOW_MS);
	expect(before.length).toBeGreaterThan(CLIENTS);
	expect(after.length / before.length).toBeGreaterThan(0.5);
	const served = new Set(after.map((c) => c.client));
	expect(CLIENTS - served.size).toBe(0);
});
