// The relay of the management CLI's changes (services/users/management/change-relay.ts) against the test
// store: no server stamped lately, the CLI hands nothing over; a live replica broadcasts each record
// once, in order, however many replicas poll at once; a record no one claims is withdrawn.
import { randomBytes } from "node:crypto";
import type { Connection } from "mongoose";
import { connectServiceDb, ensureIndexes } from "../../shared/db";
import { cliChangeModel } from "../../services/users/management/cli-change-model";
import { cliRelayModel } from "../../services/users/management/cli-relay-model";
import { relayPending, relayThroughServer, RELAY_ALIVE_MS, type RelayedEvent } from "../../services/users/management/change-relay";
import type { UsersDb } from "../../services/users/db";

let conn: Connection;
let db: UsersDb;

beforeAll(async () => {
	conn = await connectServiceDb(process.env.TEST_MONGO_URL!, `r${randomBytes(4).toString("hex")}`, "users");
	db = { CliChange: cliChangeModel(conn), CliRelay: cliRelayModel(conn) } as UsersDb;
	await ensureIndexes(conn);
});

afterEach(async () => {
	await db.CliChange.deleteMany({});
	await db.CliRelay.deleteMany({});
});

afterAll(async () => {
	await conn.dropDatabase().catch(() => undefined);
	await conn.close();
});

const events = (n: number): RelayedEvent[] => Array.from({ length: n }, (_, i) => ({ event: "users.changed", payload: { user_ids: [i] } }));

test("with no replica stamped lately, nothing is handed over and nothing waits", async () => {
	await db.CliRelay.create({ _id: "gone", seen_at: new Date(Date.now() - RELAY_ALIVE_MS - 1000) });
	expect(await relayThroughServer(db, events(1), 60_000)).toBe("no server");
	expect(await db.CliChange.countDocuments()).toBe(0);
});

test("a live replica broadcasts each record once and in order, with three replicas polling at once", async () => {
	await db.CliRelay.create({ _id: "a", seen_at: new Date() });
	const heard: Array<{ node: string; event: string; payload: unknown }> = [];
	let polling = true;
	const replica = async (node: string) => {
		while (polling) {
			await relayPending(db, node, (event, payload) => heard.push({ node, event, payload }));
			await new Promise((r) => setTimeout(r, 5));
		}
	};
	const replicas = ["a", "b", "c"].map(replica);
	const outcomes = await Promise.all([relayThroughServer(db, events(3)), relayThroughServer(db, events(2).map((e) => ({ ...e, event: "users.groupsChanged" })))]);
	polling = false;
	await Promise.all(replicas);
	expect(outcomes).toEqual(["relayed", "relayed"]);
	expect(heard).toHaveLength(5);
	// Each record's events arrive together, in the order the command broadcast them.
	const changed = heard.filter((h) => h.event === "users.changed");
	expect(changed.map((h) => h.payload)).toEqual([{ user_ids: [0] }, { user_ids: [1] }, { user_ids: [2] }]);
	expect(new Set(changed.map((h) => h.node)).size).toBe(1);
	expect(await db.CliChange.countDocuments()).toBe(0);
});

test("only the users service's own announcements are relayed", async () => {
	await db.CliRelay.create({ _id: "a", seen_at: new Date() });
	const heard: string[] = [];
	const poll = setInterval(() => void relayPending(db, "a", (event) => heard.push(event)), 20);
	try {
		expect(await relayThroughServer(db, [{ event: "$node.connected", payload: {} }, { event: "users.changed", payload: { user_ids: [1] } }, { event: "channels.changed", payload: {} }])).toBe("relayed");
	} finally {
		clearInterval(poll);
	}
	expect(heard).toEqual(["users.changed"]);
});

test("a record no live replica claims is withdrawn, and says so", async () => {
	await db.CliRelay.create({ _id: "killed", seen_at: new Date() });
	expect(await relayThroughServer(db, events(1), 300)).toBe("not taken");
	expect(await db.CliChange.countDocuments()).toBe(0);
	// A replica polling later finds nothing to broadcast.
	expect(await relayPending(db, "late", () => undefined)).toBe(0);
});
