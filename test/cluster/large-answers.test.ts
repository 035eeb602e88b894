// Answers and requests larger than one NATS message (1 MB by default): a gateway and users,
// channels and messages nodes, each its own process over a real nats-server. GET /messages with
// num_before=5000 (Zulip's largest) over a channel of long messages must answer in full, as it
// does in one process, and so must a request whose parameters alone exceed 1 MB.
import { expectSuccess, NOTIFICATION_BOT_EMAIL, type Client } from "../support/http";
import { waitFor } from "../support/processes";
import { ownerReadsMessages, startCluster, type Cluster } from "../support/cluster";

jest.setTimeout(180_000);

let cluster: Cluster;
let owner: Client;
const ids: number[] = [];
/** Messages sent, each 9,000 characters: about 2.7 MB of content in all, with the HTML twice that. */
const COUNT = 300;
const contentOf = (i: number) => `${i} ${"λόγος and <html> & \"quotes\" ".repeat(300)}`.slice(0, 8999).trimEnd();

beforeAll(async () => {
	cluster = await startCluster({
		name: "large",
		nodes: ["users", "channels,catalog", "messages"],
		ready: ownerReadsMessages,
	});
	owner = cluster.owner;
	await waitFor(async () => (await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "long" }] })).status === 200, "the channels node", 60_000);
	for (let i = 0; i < COUNT; i++) {
		const r = await owner.post("/messages", { type: "stream", to: "long", topic: "t", content: contentOf(i) });
		expectSuccess(r);
		ids.push(r.body.id);
	}
});

afterAll(async () => {
	await cluster?.stop();
});

test("GET /messages with num_before=5000 answers every message, several MB, across the bus", async () => {
	const narrow = [{ operator: "channel", operand: "long" }];
	for (const apply_markdown of [true, false]) {
		const r = await owner.get("/messages", { anchor: "newest", num_before: 5000, num_after: 0, narrow, apply_markdown });
		expectSuccess(r);
		// The messages sent, after Notification Bot's creation notice.
		const sent = (r.body.messages as Array<{ id: number; content: string; sender_email: string }>).filter((m) => m.sender_email !== NOTIFICATION_BOT_EMAIL);
		expect(sent.map((m) => m.id)).toEqual(ids);
		expect(r.body).toMatchObject({ found_oldest: true, found_newest: true });
		// Compared as a whole: a mismatch is one line, not megabytes of diff.
		if (!apply_markdown) expect(sent.every((m, i) => m.content === contentOf(i))).toBe(true);
		const bytes = Buffer.byteLength(JSON.stringify(r.body));
		console.log(`GET /messages num_before=5000, apply_markdown ${apply_markdown}: ${r.body.messages.length} messages, ${bytes} bytes`);
		expect(bytes).toBeGreaterThan(2_500_000);
	}
	// Small answers are unchanged.
	const one = await owner.get("/messages", { anchor: "newest", num_before: 1, num_after: 0, narrow });
	expectSuccess(one);
	expect(one.body.messages.map((m: { id: number }) => m.id)).toEqual([ids.at(-1)]);
});

test("a request whose parameters exceed 1 MB crosses the bus and gets the service's own answer", async () => {
	const content = "x".repeat(1_500_000);
	const r = await owner.post("/messages", { type: "stream", to: "long", topic: "t", content });
	expect(r.status).toBe(400);
	expect(r.body).toMatchObject({ result: "error", code: "BAD_REQUEST", msg: "Message too long (limit: 10000 characters)" });
});
