// A busy user's start: POST /register's unread_msgs is capped at Zulip's MAX_UNREAD_MESSAGES
// (50,000, the newest kept, old_unreads_missing set beyond it), and keyword search finds messages
// stored before its index field existed once the service has filled it in at start. The large
// fixture is copied in the database (test/support/fixtures.ts), not sent.
import mongoose from "mongoose";
import { randomBytes } from "node:crypto";
import { startTestApp, type TestApp } from "../support/app";
import { copyMessage } from "../support/fixtures";
import { client, expectSuccess, sendMessage } from "../support/http";

const MAX_UNREAD_MESSAGES = 50_000;

describe("unread_msgs at Zulip's cap", () => {
	let app: TestApp;
	beforeAll(async () => {
		app = await startTestApp();
	});
	afterAll(() => app.stop());

	test("the newest 50,000 unread messages, grouped by topic and conversation, and old_unreads_missing", async () => {
		const owner = client(app.baseUrl, app.owner);
		const alice = await app.createUser({ full_name: "Alice" });
		const bob = await app.createUser({ full_name: "Bob" });
		const as = (a: typeof alice) => client(app.baseUrl, a);
		const me = (await owner.get("/users/me")).body as { full_name: string };
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "busy" }, { name: "quiet" }], principals: [app.owner.user_id, alice.user_id] }));
		const busyId = (await owner.get("/get_stream_id", { stream: "busy" })).body.stream_id as number;
		const quietId = (await owner.get("/get_stream_id", { stream: "quiet" })).body.stream_id as number;
		// The oldest unread messages: a topic and a direct conversation that the cap leaves out.
		const oldTopic = await sendMessage(as(alice), { type: "channel", to: quietId, topic: "Old Topic", content: "before everything" });
		const oldDm = await sendMessage(as(bob), { type: "direct", to: [app.owner.user_id], content: "an old direct message" });
		const seed = await sendMessage(as(alice), { type: "channel", to: busyId, topic: "Busy Topic", content: "one of many" });
		const copies = await copyMessage(app, seed, MAX_UNREAD_MESSAGES - 4);
		// The newest: a group conversation, a mention, and one more in the first direct conversation.
		const group = await sendMessage(as(alice), { type: "direct", to: [app.owner.user_id, bob.user_id], content: "the three of us" });
		const mention = await sendMessage(as(alice), { type: "channel", to: busyId, topic: "busy topic", content: `@**${me.full_name}** look` });
		const newDm = await sendMessage(as(bob), { type: "direct", to: [app.owner.user_id], content: "a new direct message" });

		const res = await owner.post("/register", { event_types: ["message", "update_message_flags"] });
		expectSuccess(res);
		const u = res.body.unread_msgs;
		expect(u.old_unreads_missing).toBe(true);
		expect(u.count).toBe(MAX_UNREAD_MESSAGES);
		// Seed and copies (49,997), then the group message, the mention and the new direct message;
		// the two oldest unread messages are left out.
		expect(u.streams).toEqual([{ stream_id: busyId, topic: "Busy Topic", unread_message_ids: [seed, ...copies, mention] }]);
		expect(u.pms).toEqual([{ other_user_id: bob.user_id, sender_id: bob.user_id, unread_message_ids: [newDm] }]);
		expect(u.huddles).toEqual([{ user_ids_string: [app.owner.user_id, alice.user_id, bob.user_id].sort((a, b) => a - b).join(","), unread_message_ids: [group] }]);
		expect(u.mentions).toEqual([mention]);
		const listed = [...u.streams, ...u.pms, ...u.huddles].flatMap((e: { unread_message_ids: number[] }) => e.unread_message_ids);
		expect(listed).toHaveLength(MAX_UNREAD_MESSAGES);
		expect(listed).not.toContain(oldTopic);
		expect(listed).not.toContain(oldDm);

		// Reading the newest message brings the oldest left out back in: the cap counts unread ones.
		expectSuccess(await owner.post("/messages/flags", { messages: [newDm], op: "add", flag: "read" }));
		const again = (await owner.post("/register", { event_types: ["message", "update_message_flags"] })).body.unread_msgs;
		expect(again.count).toBe(MAX_UNREAD_MESSAGES);
		expect(again.old_unreads_missing).toBe(true);
		expect(again.pms).toEqual([{ other_user_id: bob.user_id, sender_id: bob.user_id, unread_message_ids: [oldDm] }]);
	}, 300_000);
});

describe("keyword search over messages stored before its index field", () => {
	test("a restarted service fills in the search words of older messages, and a search then finds them", async () => {
		const dbPrefix = `t${randomBytes(4).toString("hex")}`;
		let app = await startTestApp({ dbPrefix });
		const owner = () => client(app.baseUrl, app.owner);
		expectSuccess(await owner().post("/users/me/subscriptions", { subscriptions: [{ name: "archive" }] }));
		const content = await sendMessage(owner(), { type: "channel", to: "archive", topic: "history", content: "an ancient manuscript" });
		const topic = await sendMessage(owner(), { type: "channel", to: "archive", topic: "manuscripts", content: "filed elsewhere" });
		const search = async (words: string) => {
			const res = await owner().get("/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: [["channel", "archive"], ["search", words]] });
			expectSuccess(res);
			return (res.body.messages as Array<{ id: number }>).map((m) => m.id);
		};
		expect(await search("manuscript")).toEqual([content, topic]);

		// As an older version stored them: no `words`.
		const conn = await mongoose.createConnection(process.env.TEST_MONGO_URL!, { dbName: `${dbPrefix}_messages` }).asPromise();
		try {
			const messages = conn.db!.collection("messages");
			await messages.updateMany({}, { $unset: { words: "" } });
			expect(await search("manuscript")).toEqual([]);
			await app.stop();
			app = await startTestApp({ dbPrefix });
			const deadline = Date.now() + 120_000; // bounds a hang only
			while ((await messages.countDocuments({ words: { $exists: false } })) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
			expect(await messages.countDocuments({ words: { $exists: false } })).toBe(0);
			expect(await search("manuscript")).toEqual([content, topic]);
			expect(await search("ancient history")).toEqual([content]);
			expect(await search("filed manuscripts")).toEqual([topic]);
		} finally {
			await conn.close();
			await app.stop();
		}
	}, 300_000);
});
