// Editing, moving and deleting messages, and their edit history: who may, until when, what is
// recorded, and the state left behind.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, sendMessage, type Client } from "../support/http";
import { clock } from "../../shared/clock";
import { copyMessage } from "../support/fixtures";

let app: TestApp;
let owner: Client;
let alice: Account;
let bob: Account;
let guest: Account;
const as = (a: Account) => client(app.baseUrl, a);

const send = sendMessage;
async function message(c: Client, id: number): Promise<any> {
	return (await c.get(`/messages/${id}`)).body.message;
}
async function topicIds(c: Client, channel: string, topic: string): Promise<number[]> {
	const res = await c.get("/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow: [{ operator: "channel", operand: channel }, ["topic", topic]] });
	return res.body.messages.map((m: { id: number }) => m.id);
}

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	guest = await app.createUser({ full_name: "Guest", role: 600 });
	for (const name of ["general", "elsewhere"]) {
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name }], principals: [1, alice.user_id, bob.user_id] }));
	}
});
afterAll(() => app.stop());
afterEach(() => clock.reset());

describe("editing content", () => {
	test("the sender edits; the message and its history show it", async () => {
		const id = await send(as(alice), { type: "channel", to: "general", topic: "edits", content: "hello world" });
		expectSuccess(await as(alice).patch(`/messages/${id}`, { content: "hello brave world" }));
		const m = await message(as(bob), id);
		expect(m).toMatchObject({ content: "<p>hello brave world</p>", last_edit_timestamp: expect.any(Number) });
		expect(m).not.toHaveProperty("last_moved_timestamp");
		expect(m.edit_history).toEqual([{ user_id: alice.user_id, timestamp: expect.any(Number), prev_content: "hello world", prev_rendered_content: "<p>hello world</p>" }]);
		const history = (await as(bob).get(`/messages/${id}/history`)).body.message_history;
		expect(history).toHaveLength(2);
		expect(history[0]).toEqual({ topic: "edits", content: "hello world", rendered_content: "<p>hello world</p>", timestamp: expect.any(Number), user_id: alice.user_id });
		expect(history[1]).toMatchObject({ content: "hello brave world", prev_content: "hello world", topic: "edits", user_id: alice.user_id });
		expect(history[1].content_html_diff).toContain('<span class="highlight_text_inserted">brave');
	});

	test("a message never edited has a one-snapshot history and no edit_history", async () => {
		const id = await send(as(alice), { type: "channel", to: "general", topic: "plain", content: "as sent" });
		expect((await as(alice).get(`/messages/${id}/history`)).body.message_history).toHaveLength(1);
		expect(await message(as(alice), id)).not.toHaveProperty("edit_history");
	});

	test("only the sender, and only in time; nothing changes otherwise", async () => {
		const id = await send(as(alice), { type: "channel", to: "general", topic: "edits", content: "mine" });
		expectError(await as(bob).patch(`/messages/${id}`, { content: "his" }), 400, "BAD_REQUEST", "You don't have permission to edit this message");
		expectError(await owner.patch(`/messages/${id}`, { content: "admin's" }), 400, "BAD_REQUEST", "You don't have permission to edit this message");
		clock.advance(601_000);
		expectError(await as(alice).patch(`/messages/${id}`, { content: "late" }), 400, "BAD_REQUEST", "The time limit for editing this message has passed");
		expect((await message(as(alice), id)).content).toBe("<p>mine</p>");
	});

	test("editing changes mention flags", async () => {
		const id = await send(as(alice), { type: "channel", to: "general", topic: "edits", content: "no mention" });
		const flags = async () => (await as(bob).get("/messages", { message_ids: [id] })).body.messages[0].flags;
		expect(await flags()).toEqual([]);
		expectSuccess(await as(alice).patch(`/messages/${id}`, { content: "now @**Bob**" }));
		expect(await flags()).toEqual(["mentioned"]);
		expectSuccess(await as(alice).patch(`/messages/${id}`, { content: "not any more" }));
		expect(await flags()).toEqual([]);
	});

	test("bad requests", async () => {
		const id = await send(as(alice), { type: "channel", to: "general", topic: "edits", content: "x" });
		expectError(await as(alice).patch(`/messages/${id}`, {}), 400, "BAD_REQUEST", "Nothing to change");
		expectError(await as(alice).patch(`/messages/${id}`, { content: "  " }), 400, "BAD_REQUEST", "Message must not be empty");
		expectError(await as(alice).patch("/messages/999999", { content: "x" }), 400, "BAD_REQUEST", "Invalid message(s)");
		expectError(await as(alice).patch(`/messages/${id}`, { propagate_mode: "change_some", topic: "y" }), 400, "BAD_REQUEST", "Invalid propagate_mode");
		expectError(await as(alice).get("/messages/999999/history"), 400, "BAD_REQUEST", "Invalid message(s)");
	});
});

describe("moving", () => {
	// These tests look at the moved messages alone; Notification Bot's notices are tested below.
	const quietly = { send_notification_to_new_thread: false };
	test("change_one, change_later and change_all move the right messages", async () => {
		const ids: number[] = [];
		for (let i = 0; i < 4; i++) ids.push(await send(as(alice), { type: "channel", to: "general", topic: "old", content: `m${i}` }));
		expectSuccess(await as(alice).patch(`/messages/${ids[0]}`, { topic: "one", ...quietly }));
		expect(await topicIds(as(bob), "general", "one")).toEqual([ids[0]]);
		expectSuccess(await as(alice).patch(`/messages/${ids[2]}`, { topic: "later", propagate_mode: "change_later", ...quietly }));
		expect(await topicIds(as(bob), "general", "later")).toEqual([ids[2], ids[3]]);
		expect(await topicIds(as(bob), "general", "old")).toEqual([ids[1]]);
		expectSuccess(await as(alice).patch(`/messages/${ids[3]}`, { topic: "all", propagate_mode: "change_all", ...quietly }));
		expect(await topicIds(as(bob), "general", "all")).toEqual([ids[2], ids[3]]);
		const m = await message(as(bob), ids[3]);
		expect(m).toMatchObject({ subject: "all", last_moved_timestamp: expect.any(Number) });
		expect(m).not.toHaveProperty("last_edit_timestamp");
		expect(m.edit_history[0]).toMatchObject({ prev_topic: "later", topic: "all", user_id: alice.user_id });
	});

	test("a topic of 1,100 messages moves in steps, whole: every message and every copy, one history record each", async () => {
		// One message sent, the others copies made in the database.
		const first = await send(as(alice), { type: "channel", to: "general", topic: "big", content: "b" });
		const ids = [first, ...(await copyMessage(app, first, 1099))];
		const middle = ids[500];
		expectSuccess(await as(alice).patch(`/messages/${middle}`, { topic: "bigger", stream_id: (await owner.get("/get_stream_id", { stream: "elsewhere" })).body.stream_id, propagate_mode: "change_all", ...quietly }));
		const moved = await as(bob).get("/messages", { anchor: "newest", num_before: 5000, num_after: 0, narrow: [["channel", "elsewhere"], ["topic", "bigger"]] });
		expect(moved.body.messages.map((m: { id: number }) => m.id)).toEqual(ids);
		expect(await topicIds(as(bob), "general", "big")).toEqual([]);
		for (const id of [ids[0], middle, ids.at(-1)!]) {
			expect((await message(as(bob), id)).edit_history).toEqual([expect.objectContaining({ prev_topic: "big", topic: "bigger", user_id: alice.user_id })]);
		}
	});

	test("resolving a topic is not a move", async () => {
		const id = await send(as(alice), { type: "channel", to: "general", topic: "bug", content: "broken" });
		expectSuccess(await as(bob).patch(`/messages/${id}`, { topic: "✔ bug", propagate_mode: "change_all" }));
		const m = await message(as(alice), id);
		expect(m.subject).toBe("✔ bug");
		expect(m).not.toHaveProperty("last_moved_timestamp");
		expect(m.edit_history[0]).toMatchObject({ prev_topic: "bug", topic: "✔ bug" });
	});

	test("to another channel: the history records both channels", async () => {
		const id = await send(as(alice), { type: "channel", to: "general", topic: "misplaced", content: "wrong place" });
		const elsewhere = (await owner.get("/get_stream_id", { stream: "elsewhere" })).body.stream_id;
		const general = (await owner.get("/get_stream_id", { stream: "general" })).body.stream_id;
		expectSuccess(await as(bob).patch(`/messages/${id}`, { stream_id: elsewhere, topic: "found", ...quietly }));
		expect(await topicIds(as(alice), "elsewhere", "found")).toEqual([id]);
		expect(await topicIds(as(alice), "general", "misplaced")).toEqual([]);
		const history = (await as(alice).get(`/messages/${id}/history`)).body.message_history;
		expect(history[1]).toMatchObject({ prev_stream: general, stream: elsewhere, prev_topic: "misplaced", topic: "found" });
		expect((await message(as(alice), id)).stream_id).toBe(elsewhere);
	});

	test("into a private channel without shared history, non-subscribers lose their copy", async () => {
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "private-room" }], invite_only: true, principals: [1, alice.user_id] }));
		const room = (await owner.get("/get_stream_id", { stream: "private-room" })).body.stream_id;
		const id = await send(as(alice), { type: "channel", to: "general", topic: "sensitive", content: "oops" });
		expectSuccess(await as(alice).patch(`/messages/${id}`, { stream_id: room }));
		expectError(await as(bob).get(`/messages/${id}`), 400, "BAD_REQUEST", "Invalid message(s)");
		expect((await message(as(alice), id)).stream_id).toBe(room);
	});

	test("direct messages cannot move; guests cannot reach others' channel messages", async () => {
		const dm = await send(as(alice), { type: "direct", to: [bob.user_id], content: "hi" });
		expectError(await as(alice).patch(`/messages/${dm}`, { topic: "x" }), 400, "BAD_REQUEST", /cannot be moved/);
		const id = await send(as(alice), { type: "channel", to: "general", topic: "t", content: "x" });
		expectError(await as(guest).patch(`/messages/${id}`, { topic: "y" }), 400, "BAD_REQUEST", "Invalid message(s)");
	});

	test("moving is limited to a week for members, not for moderators and administrators", async () => {
		const id = await send(as(alice), { type: "channel", to: "general", topic: "aged", content: "x" });
		clock.advance(8 * 86400_000);
		expectError(await as(bob).patch(`/messages/${id}`, { topic: "aged later" }), 400, "BAD_REQUEST", /time limit/);
		expectSuccess(await owner.patch(`/messages/${id}`, { topic: "aged later" }));
	});
});

describe("content and topic in one request", () => {
	test("one history entry for the edited message, one topic entry for each other message moved", async () => {
		const ids: number[] = [];
		for (let i = 0; i < 3; i++) ids.push(await send(as(alice), { type: "channel", to: "general", topic: "combo", content: `part ${i}` }));
		const res = await as(alice).patch(`/messages/${ids[1]}`, { content: "part one, edited", topic: "combo moved", propagate_mode: "change_all", send_notification_to_new_thread: false });
		expectSuccess(res);
		expect(await topicIds(as(bob), "general", "combo moved")).toEqual(ids);

		const edited = await message(as(bob), ids[1]);
		expect(edited).toMatchObject({ subject: "combo moved", content: "<p>part one, edited</p>", last_edit_timestamp: expect.any(Number), last_moved_timestamp: expect.any(Number) });
		expect(edited.edit_history).toEqual([
			{
				user_id: alice.user_id,
				timestamp: edited.last_edit_timestamp,
				prev_content: "part 1",
				prev_rendered_content: "<p>part 1</p>",
				prev_topic: "combo",
				topic: "combo moved",
			},
		]);
		for (const other of [ids[0], ids[2]]) {
			const m = await message(as(bob), other);
			expect(m.edit_history).toEqual([{ user_id: alice.user_id, timestamp: edited.last_edit_timestamp, prev_topic: "combo", topic: "combo moved" }]);
			expect(m).not.toHaveProperty("last_edit_timestamp");
		}

		const history = (await as(bob).get(`/messages/${ids[1]}/history`)).body.message_history;
		expect(history).toHaveLength(2);
		expect(history[0]).toEqual({ topic: "combo", content: "part 1", rendered_content: "<p>part 1</p>", timestamp: expect.any(Number), user_id: alice.user_id });
		expect(history[1]).toEqual({
			topic: "combo moved",
			prev_topic: "combo",
			content: "part one, edited",
			rendered_content: "<p>part one, edited</p>",
			prev_content: "part 1",
			prev_rendered_content: "<p>part 1</p>",
			content_html_diff: expect.stringContaining("highlight_text_inserted"),
			timestamp: edited.last_edit_timestamp,
			user_id: alice.user_id,
		});
		const moved = (await as(bob).get(`/messages/${ids[0]}/history`)).body.message_history;
		expect(moved).toHaveLength(2);
		expect(moved[1]).toEqual({ topic: "combo moved", prev_topic: "combo", content: "part 0", rendered_content: "<p>part 0</p>", timestamp: edited.last_edit_timestamp, user_id: alice.user_id });
	});

	test("with edit history visible for moves only, the combined entry shows the move alone", async () => {
		const id = await send(as(alice), { type: "channel", to: "general", topic: "quiet", content: "before" });
		expectSuccess(await as(alice).patch(`/messages/${id}`, { content: "after" }));
		expectSuccess(await as(alice).patch(`/messages/${id}`, { content: "after again", topic: "quiet moved", send_notification_to_new_thread: false }));
		await app.node.broker.call("users.setRealmSetting", { name: "realm_message_edit_history_visibility_policy", value: "moves" });
		try {
			const m = await message(as(bob), id);
			expect(m.edit_history).toEqual([{ user_id: alice.user_id, timestamp: expect.any(Number), prev_topic: "quiet", topic: "quiet moved" }]);
		} finally {
			await app.node.broker.call("users.setRealmSetting", { name: "realm_message_edit_history_visibility_policy", value: "all" });
		}
		expect((await message(as(bob), id)).edit_history).toHaveLength(2);
	});

	test("content cannot change with the channel, as in Zulip; nothing changes", async () => {
		const id = await send(as(alice), { type: "channel", to: "general", topic: "stay", content: "stays" });
		const elsewhere = (await owner.get("/get_stream_id", { stream: "elsewhere" })).body.stream_id;
		expectError(await as(alice).patch(`/messages/${id}`, { content: "changed", stream_id: elsewhere }), 400, "BAD_REQUEST", "Cannot change message content while changing channel");
		expectError(await as(alice).patch(`/messages/${id}`, { content: "changed", topic: 7 }, { json: true }), 400, "BAD_REQUEST", "topic is not a string");
		expectError(await as(bob).patch(`/messages/${id}`, { content: "his", topic: "his topic" }), 400, "BAD_REQUEST", "You don't have permission to edit this message");
		expectError(await as(alice).patch("/messages/999999", { content: "x", topic: "y" }), 400, "BAD_REQUEST", "Invalid message(s)");
		const m = await message(as(bob), id);
		expect(m).toMatchObject({ subject: "stay", content: "<p>stays</p>" });
		expect(m).not.toHaveProperty("edit_history");
	});
});

describe("deleting", () => {
	test("the sender deletes in time; others may not; administrators may", async () => {
		const a = await send(as(alice), { type: "channel", to: "general", topic: "del", content: "a" });
		expectError(await as(bob).delete(`/messages/${a}`), 400, "BAD_REQUEST", "You don't have permission to delete this message");
		expectSuccess(await as(alice).delete(`/messages/${a}`));
		expectError(await as(alice).get(`/messages/${a}`), 400, "BAD_REQUEST", "Invalid message(s)");
		expect(await topicIds(as(bob), "general", "del")).toEqual([]);

		const b = await send(as(alice), { type: "channel", to: "general", topic: "del", content: "b" });
		clock.advance(601_000);
		expectError(await as(alice).delete(`/messages/${b}`), 400, "BAD_REQUEST", "The time limit for deleting this message has passed");
		expectSuccess(await owner.delete(`/messages/${b}`));
		expectError(await owner.delete(`/messages/${b}`), 400, "BAD_REQUEST", "Invalid message(s)");
	});

	test("direct messages: the sender or an administrator", async () => {
		const dm = await send(as(alice), { type: "direct", to: [bob.user_id], content: "hi" });
		expectError(await as(bob).delete(`/messages/${dm}`), 400, "BAD_REQUEST", "You don't have permission to delete this message");
		expectSuccess(await as(alice).delete(`/messages/${dm}`));
	});
});
