// Exactly-once delivery of scheduled messages by three `scheduling` replicas, each its own process
// over a real nats-server: 500 messages due at the same second, and mid-burst one replica is
// killed with SIGKILL while it holds claims. Every message must be sent exactly once (the sent
// messages counted by their delivery key, and as the API shows them), none lost: the dead
// replica's claims are taken back after the claim timeout by the others.
import { expectSuccess } from "../support/http";
import { waitFor } from "../support/processes";
import { scheduleBurst, startSchedulingCluster, type SchedulingCluster } from "../support/scheduling-cluster";

jest.setTimeout(240_000);

const COUNT = 500;
const CLAIM_TIMEOUT_SECONDS = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let cluster: SchedulingCluster;

beforeAll(async () => {
	cluster = await startSchedulingCluster({ replicas: 3, claimTimeoutSeconds: CLAIM_TIMEOUT_SECONDS });
});

afterAll(async () => {
	await cluster?.stop();
});

/** The process ID in a claimant's name (`<node name>-<host>-<pid>/<random>`). */
const pidOf = (claimedBy: unknown) => Number(/-(\d+)\/[^/]+$/.exec(String(claimedBy))?.[1]);

test("500 messages due at the same second, three replicas, one killed mid-burst: each sent exactly once, none lost", async () => {
	const { ids, due, channelId } = await scheduleBurst(cluster, COUNT, 8);
	expect(new Set(ids).size).toBe(COUNT);
	const mine = { _id: { $in: ids } } as never;
	const delivered = () => cluster.scheduled.countDocuments({ _id: { $in: ids }, state: "delivered" } as never);

	// Once the burst is under way, kill a replica that holds a claim at that moment.
	const claimants = new Set<number>();
	let victim: number | undefined;
	let victimClaims = 0;
	const deadline = Date.now() + 60_000;
	while (!victim) {
		if (Date.now() > deadline) throw new Error("the burst did not start");
		const sending = await cluster.scheduled.find({ _id: { $in: ids }, state: "sending" } as never, { projection: { claimed_by: 1 } }).toArray();
		for (const d of sending) claimants.add(pidOf(d.claimed_by));
		const done = await delivered();
		if (done >= COUNT) throw new Error("the burst ended before a replica could be killed");
		// The node process (tsx's child) whose ID the claimant names.
		const held = sending.length ? pidOf(sending[0].claimed_by) : NaN;
		if (done >= 50 && Number.isInteger(held)) {
			process.kill(held, "SIGKILL");
			victim = held;
			victimClaims = sending.filter((d) => pidOf(d.claimed_by) === held).length;
		} else await sleep(20);
	}
	expect(Date.now() / 1000).toBeGreaterThanOrEqual(due);
	expect(victimClaims).toBeGreaterThan(0);

	// The survivors deliver the rest, and the dead replica's claims after the claim timeout.
	await waitFor(async () => (await delivered()) === COUNT, "every message delivered", 120_000);
	const docs = await cluster.scheduled.find(mine).toArray();
	expect(docs.filter((d) => d.state !== "delivered")).toEqual([]);

	// Sent messages counted by delivery key: each scheduled message exactly once.
	const sent = await cluster.messages.find({ idempotency_key: { $in: ids.map((id) => `scheduled:${id}`) } } as never, { projection: { idempotency_key: 1 } }).toArray();
	const perKey = new Map<string, number>();
	for (const m of sent) perKey.set(m.idempotency_key, (perKey.get(m.idempotency_key) ?? 0) + 1);
	expect(perKey.size).toBe(COUNT);
	expect([...perKey.values()].filter((n) => n !== 1)).toEqual([]);
	const messageOf = new Map(sent.map((m) => [m.idempotency_key as string, m._id as unknown as number]));
	expect(docs.filter((d) => d.delivered_message_id !== messageOf.get(`scheduled:${d._id}`))).toEqual([]);

	// As the API shows them: the channel holds each content once, and nothing is left scheduled.
	const res = await cluster.owner.get("/messages", { anchor: "newest", num_before: 1000, num_after: 0, narrow: [{ operator: "channel", operand: channelId }], apply_markdown: false });
	expectSuccess(res);
	const contents = res.body.messages.filter((m: { subject: string }) => m.subject === "burst").map((m: { content: string }) => m.content).sort();
	expect(contents).toEqual(Array.from({ length: COUNT }, (_, i) => `burst ${i}`).sort());
	const left = await cluster.owner.get("/scheduled_messages");
	expectSuccess(left);
	expect(left.body.scheduled_messages).toEqual([]);
	// More than one replica took part.
	expect(claimants.size).toBeGreaterThan(1);
});
