// The catalog stored before the catalog service existed (services/catalog/move-from-users.ts):
// linkifiers, playgrounds, custom emoji and their ID counters in the users database are copied to
// the catalog's own at its first start, once, by one replica of several starting at once, and
// then served: listed, in POST /register, used in rendering, and new ones take the next IDs. A copy
// done is never repeated (a linkifier removed later stays removed); a claim left by a replica that
// died is taken over; a catalog that holds data already (an import's) copies nothing.
import { randomBytes } from "node:crypto";
import mongoose, { type Connection } from "mongoose";
import { CLAIM_STALE_MS, catalogDataMoved, moveFromUsers } from "../../services/catalog/move-from-users";
import { clock } from "../../shared/clock";
import { startTestApp, type TestApp } from "../support/app";
import { client, expectSuccess, sendMessage } from "../support/http";

const mongoUrl = () => process.env.TEST_MONGO_URL!;
const open = (prefix: string, service: string) => mongoose.createConnection(mongoUrl(), { dbName: `${prefix}_${service}` }).asPromise();
const quiet = { info: () => undefined };
/** A raw collection whose documents have numeric IDs, as the services' own. */
const coll = (conn: Connection, name: string) => conn.db!.collection<{ _id: number }>(name);

const linkifier = { _id: 3, realm_id: 1, pattern: "#(?P<id>[0-9]+)", url_template: "https://tracker.example.com/{id}", order: 0 };
const playground = { _id: 2, realm_id: 1, name: "Python", pygments_language: "python", url_template: "https://play.example.com/?code={code}" };
const emoji = { _id: 5, realm_id: 1, name: "old_parrot", author_id: null, file_name: "abcdef.png", is_animated: false, deactivated: false };

/** A users database as a server before the catalog service left it. */
async function oldUsersData(prefix: string): Promise<void> {
	const users = await open(prefix, "users");
	try {
		await coll(users, "realm_filters").insertOne({ ...linkifier });
		await coll(users, "realm_playgrounds").insertOne({ ...playground });
		await coll(users, "realm_emoji").insertOne({ ...emoji });
		await users.db!.collection<{ _id: string; seq: number }>("counters").insertMany([
			{ _id: "realm_filter", seq: 7 },
			{ _id: "realm_playground", seq: 4 },
			{ _id: "realm_emoji", seq: 9 },
		]);
	} finally {
		await users.close();
	}
}

async function contents(conn: Connection) {
	const all = async (name: string) => conn.db!.collection(name).find({}).sort({ _id: 1 }).toArray();
	return {
		realm_filters: await all("realm_filters"),
		realm_playgrounds: await all("realm_playgrounds"),
		realm_emoji: await all("realm_emoji"),
		counters: await all("counters"),
		marker: await conn.db!.collection("catalog_moves").findOne({}),
	};
}

describe("several replicas starting at once", () => {
	let prefix: string;
	let catalogs: Connection[];
	beforeAll(async () => {
		prefix = `t${randomBytes(4).toString("hex")}`;
		await oldUsersData(prefix);
		catalogs = await Promise.all([1, 2, 3].map(() => open(prefix, "catalog")));
	});
	afterAll(async () => {
		for (const c of catalogs) await c.close();
	});

	test("one copies, the others wait for it; each document and counter once; never again", async () => {
		await Promise.all(catalogs.map((c) => moveFromUsers(c, () => open(prefix, "users"), quiet)));
		const after = await contents(catalogs[0]);
		expect(after.realm_filters).toEqual([linkifier]);
		expect(after.realm_playgrounds).toEqual([playground]);
		expect(after.realm_emoji).toEqual([emoji]);
		expect(after.counters).toEqual([
			{ _id: "realm_emoji", seq: 9 },
			{ _id: "realm_filter", seq: 7 },
			{ _id: "realm_playground", seq: 4 },
		]);
		expect(after.marker).toEqual({ _id: "from-users", state: "done", stamped_at: expect.any(Number), copied: { realm_filters: 1, realm_playgrounds: 1, realm_emoji: 1 } });
		expect(await catalogDataMoved(catalogs[0])).toBe(true);

		// Removed after the copy: the next start does not bring it back (nor opens the users database).
		await coll(catalogs[0], "realm_filters").deleteOne({ _id: 3 });
		await moveFromUsers(catalogs[1], () => Promise.reject(new Error("the users database is not read again")), quiet);
		expect((await contents(catalogs[0])).realm_filters).toEqual([]);
	});
});

test("a claim left by a replica that died is taken over; a copy half done completes without doubles", async () => {
	const prefix = `t${randomBytes(4).toString("hex")}`;
	await oldUsersData(prefix);
	const catalog = await open(prefix, "catalog");
	try {
		// The dead replica had copied the linkifier, and raised a counter past the old one meanwhile.
		await catalog.db!.collection("catalog_moves").insertOne({ _id: "from-users" as never, state: "copying", stamped_at: clock.nowMs() - CLAIM_STALE_MS - 1000 });
		await coll(catalog, "realm_filters").insertOne({ ...linkifier });
		await catalog.db!.collection("counters").insertOne({ _id: "realm_filter" as never, seq: 8 });
		expect(await catalogDataMoved(catalog)).toBe(true);
		await moveFromUsers(catalog, () => open(prefix, "users"), quiet);
		const after = await contents(catalog);
		expect([after.realm_filters, after.realm_playgrounds, after.realm_emoji]).toEqual([[linkifier], [playground], [emoji]]);
		expect(after.counters.find((c) => c._id === ("realm_filter" as never))).toEqual({ _id: "realm_filter", seq: 8 });
		expect(after.marker?.state).toBe("done");
	} finally {
		await catalog.close();
	}
});

test("a catalog holding data already (an import's) copies nothing; before the move, an old server's catalog counts as not moved (the export reads the users database)", async () => {
	const prefix = `t${randomBytes(4).toString("hex")}`;
	await oldUsersData(prefix);
	const catalog = await open(prefix, "catalog");
	try {
		expect(await catalogDataMoved(catalog)).toBe(false);
		const imported = { ...emoji, _id: 1, name: "imported" };
		await coll(catalog, "realm_emoji").insertOne(imported);
		await moveFromUsers(catalog, () => Promise.reject(new Error("nothing to copy")), quiet);
		const after = await contents(catalog);
		expect([after.realm_filters, after.realm_playgrounds, after.realm_emoji, after.counters]).toEqual([[], [], [imported], []]);
		expect(after.marker?.state).toBe("done");
	} finally {
		await catalog.close();
	}
});

describe("a server upgraded with catalog data in the users database", () => {
	let app: TestApp;
	const prefix = `t${randomBytes(4).toString("hex")}`;
	beforeAll(async () => {
		await oldUsersData(prefix);
		app = await startTestApp({ dbPrefix: prefix });
	});
	afterAll(async () => {
		await app?.stop();
	});

	test("serves it after its first start: lists, POST /register, rendering; new ones take the next IDs", async () => {
		const owner = client(app.baseUrl, app.owner);
		const listed = { id: 3, pattern: linkifier.pattern, url_template: linkifier.url_template };
		expect((await owner.get("/realm/linkifiers")).body.linkifiers).toEqual([listed]);
		const emojiList = (await owner.get("/realm/emoji")).body.emoji;
		expect(Object.keys(emojiList)).toEqual(["5"]);
		expect(emojiList["5"]).toMatchObject({ id: "5", name: "old_parrot", deactivated: false, author_id: null });
		const reg = await owner.post("/register", { event_types: JSON.stringify(["realm_linkifiers", "realm_playgrounds", "realm_emoji"]) });
		expectSuccess(reg);
		expect(reg.body.realm_linkifiers).toEqual([listed]);
		expect(reg.body.realm_playgrounds).toEqual([{ id: 2, name: "Python", pygments_language: "python", url_template: playground.url_template }]);
		expect(Object.keys(reg.body.realm_emoji)).toEqual(["5"]);

		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "dev" }]) }));
		const id = await sendMessage(owner, { type: "stream", to: "dev", topic: "old data", content: "see #42 :old_parrot:" });
		const rendered = (await owner.get(`/messages/${id}`)).body.message.content as string;
		expect(rendered).toContain('href="https://tracker.example.com/42"');
		expect(rendered).toContain("old_parrot");

		const added = await owner.post("/realm/filters", { pattern: "ZUL-(?P<id>[0-9]+)", url_template: "https://z.example.com/{id}" });
		expectSuccess(added);
		expect(added.body.id).toBe(8);
		const playgroundAdded = await owner.post("/realm/playgrounds", { name: "Rust", pygments_language: "rust", url_template: "https://play.rust-lang.org/?code={code}" });
		expectSuccess(playgroundAdded);
		expect(playgroundAdded.body.id).toBe(5);
	});
});
