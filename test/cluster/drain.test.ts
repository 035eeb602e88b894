// SIGTERM drains a server node: 8 senders keep posting while the node is told to stop. Every
// request is either answered with success or refused before it started (503, or a connection
// refused or closed before any answer), none fails with 500, and every acknowledged message is
// stored: the node started again reads each one back.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { freePort } from "../../shared/store";
import { client, expectSuccess, type Client } from "../support/http";
import { startServerNode, waitFor, type Proc } from "../support/processes";
import { ownerKey } from "../support/cluster";

jest.setTimeout(180_000);

let dataDir: string;
let env: Record<string, string>;
let baseUrl: string;
let node: Proc | undefined;

async function start(): Promise<Client> {
	node = startServerNode(env);
	await waitFor(async () => fs.existsSync(path.join(dataDir, "zuliprc")), "the node to create the owner", 120_000);
	const owner = client(baseUrl, ownerKey(dataDir));
	await waitFor(async () => (await owner.get("/users/me").catch(() => null))?.status === 200, "the gateway", 120_000);
	return owner;
}

beforeAll(async () => {
	dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-drain-"));
	const port = await freePort();
	baseUrl = `http://127.0.0.1:${port}/api/v1`;
	env = {
		MONGO_URL: process.env.TEST_MONGO_URL!,
		DB_PREFIX: `d${randomBytes(4).toString("hex")}`,
		DATA_DIR: dataDir,
		EXTERNAL_URL: "http://drain.test",
		OWNER_EMAIL: "owner@drain.test",
		RATE_LIMIT: "0",
		PORT: String(port),
		HOST: "127.0.0.1",
	};
});

afterAll(async () => {
	await node?.stop();
	fs.rmSync(dataDir, { recursive: true, force: true });
});

type Outcome = { kind: "ok"; id: number; content: string } | { kind: "refused"; status: number } | { kind: "failed"; detail: string };

/** A connection refused, or closed before any answer came: the request never started. */
function notStarted(err: unknown): boolean {
	const cause = (err as { cause?: { code?: string } }).cause;
	return ["ECONNREFUSED", "ECONNRESET", "UND_ERR_SOCKET", "EPIPE"].includes(cause?.code ?? "");
}

test("SIGTERM under load: each send succeeds or is refused before it starts, none fails, and every acknowledged message is stored", async () => {
	let owner = await start();
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "drain" }] }));

	const outcomes: Outcome[] = [];
	let stopped = false;
	const sender = async (n: number) => {
		let refusedInARow = 0;
		for (let i = 0; refusedInARow < 3; i++) {
			const content = `sender ${n} message ${i}`;
			try {
				const r = await owner.post("/messages", { type: "stream", to: "drain", topic: "load", content });
				if (r.status === 200 && r.body.result === "success") outcomes.push({ kind: "ok", id: r.body.id, content });
				else if (r.status === 503) outcomes.push({ kind: "refused", status: r.status });
				else outcomes.push({ kind: "failed", detail: `${r.status} ${JSON.stringify(r.body)}` });
				if (r.status !== 200) refusedInARow++;
			} catch (err) {
				if (notStarted(err)) outcomes.push({ kind: "refused", status: 0 });
				else outcomes.push({ kind: "failed", detail: String((err as Error).cause ?? err) });
				refusedInARow++;
			}
			// Once the node is gone, stop after a few refusals.
			if (stopped && refusedInARow) await new Promise((r) => setTimeout(r, 20));
		}
	};
	const senders = Array.from({ length: 8 }, (_, n) => sender(n));
	// Let the load build up, then stop the node in the middle of it.
	await waitFor(async () => outcomes.filter((o) => o.kind === "ok").length >= 40, "the first sends", 60_000);
	const exit = await node!.stop("SIGTERM");
	stopped = true;
	await Promise.all(senders);

	expect(exit).toBe(0);
	expect(outcomes.filter((o) => o.kind === "failed")).toEqual([]);
	const acknowledged = outcomes.filter((o): o is Extract<Outcome, { kind: "ok" }> => o.kind === "ok");
	expect(acknowledged.length).toBeGreaterThanOrEqual(40);

	// Every acknowledged message is stored, with its content.
	owner = await start();
	const r = await owner.get("/messages", { anchor: "newest", num_before: 5000, num_after: 0, apply_markdown: false, narrow: [{ operator: "channel", operand: "drain" }] });
	expectSuccess(r);
	const stored = new Map((r.body.messages as Array<{ id: number; content: string }>).map((m) => [m.id, m.content]));
	for (const o of acknowledged) expect([o.id, stored.get(o.id)]).toEqual([o.id, o.content]);
});
