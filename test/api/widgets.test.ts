// Widgets (polls and to-do lists) through submessages, as Zulip's: the first submessage a /poll
// or /todo message gets at send time, POST /submessage and its refusals, submessages in message
// objects and `message` events, `submessage` events to those who have the message, and what
// deleting and editing a widget message do; and that the official mobile app's decoders read it all.
import mongoose from "mongoose";
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectSuccess, sendMessage, type Client } from "../support/http";
import { eventQueues, type Ev, type QueueReader } from "../support/events";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { pollEventFromJson, submessageEventFromJson, submessageFromJson, widgetDataFromJson } from "../support/flutter-submessage";

let app: TestApp;
let owner: Client;
let alice: Account;
let bob: Account;
let dave: Account;
let snap: Snapshotter;
let conn: mongoose.Connection;
const as = (a: Account) => client(app.baseUrl, a);
let general: number;
let vault: number;

const submessagesOf = async (c: Client, id: number) => {
	const res = await c.get(`/messages/${id}`);
	expectSuccess(res);
	return res.body.message.submessages as Ev[];
};
const post = (a: Account, message_id: unknown, content: unknown, msg_type = "widget") =>
	as(a).post("/submessage", { message_id, msg_type, content: typeof content === "string" ? content : JSON.stringify(content) });
const poll = (a: Account, content: string, to = general) => sendMessage(as(a), { type: "channel", to, topic: "polls", content });
const storedSubmessages = (messageId: number) => conn.useDb(`${app.node.config.dbPrefix}_messages`).collection("submessages").find({ message_id: messageId }).toArray();

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	dave = await app.createUser({ full_name: "Dave" });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [alice.user_id, bob.user_id, dave.user_id] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "vault" }], invite_only: true, principals: [alice.user_id, bob.user_id] }));
	general = (await owner.get("/get_stream_id", { stream: "general" })).body.stream_id;
	vault = (await owner.get("/get_stream_id", { stream: "vault" })).body.stream_id;
	snap = await snapshotter(app);
	conn = await mongoose.createConnection(process.env.TEST_MONGO_URL!).asPromise();
});
afterAll(async () => {
	await snap.close();
	await conn.close();
	await app.stop();
});

describe("the widget a message gets at send time", () => {
	test("/poll: question and options as Zulip's json.dumps writes them, the sender's, in GET /messages and GET /messages/{id}", async () => {
		const id = await poll(alice, "/poll What is your favorite color?\n\nRed\nGreen  \n\n   Blue\n - Yellow");
		const [widget] = await submessagesOf(as(bob), id);
		expect(widget).toEqual({
			msg_type: "widget",
			content: '{"widget_type": "poll", "extra_data": {"question": "What is your favorite color?", "options": ["Red", "Green", "Blue", "Yellow"]}}',
			message_id: id,
			sender_id: alice.user_id,
			id: expect.any(Number),
		});
		const listed = await as(bob).get("/messages", { anchor: id, num_before: 1, num_after: 0 });
		expect(listed.body.messages.map((m: Ev) => m.submessages)).toEqual([expect.any(Array), [widget]]);
	});

	test("/poll alone, non-ASCII escaped, and a first line left empty", async () => {
		const bare = await poll(alice, "/poll");
		expect((await submessagesOf(as(alice), bare))[0].content).toBe('{"widget_type": "poll", "extra_data": {"question": "", "options": []}}');
		const accented = await poll(alice, "/poll Café ☕ \"now\"?\n* oui\n😀");
		expect((await submessagesOf(as(alice), accented))[0].content).toBe('{"widget_type": "poll", "extra_data": {"question": "Caf\\u00e9 \\u2615 \\"now\\"?", "options": ["oui", "\\ud83d\\ude00"]}}');
		const noQuestion = await poll(alice, "/poll\nA\nB");
		expect(JSON.parse((await submessagesOf(as(alice), noQuestion))[0].content).extra_data).toEqual({ question: "", options: ["A", "B"] });
	});

	test("/todo: title and tasks, a description after the first ': '", async () => {
		const id = await poll(alice, "/todo Example Task List Title\n\n    task without description\ntask: with description    \n\n - task as list : also with description");
		expect((await submessagesOf(as(alice), id))[0].content).toBe(
			'{"widget_type": "todo", "extra_data": {"task_list_title": "Example Task List Title", "tasks": [{"task": "task without description", "desc": ""}, {"task": "task", "desc": "with description"}, {"task": "task as list", "desc": "also with description"}]}}',
		);
		const direct = await sendMessage(as(alice), { type: "direct", to: JSON.stringify([bob.user_id]), content: "/todo\nTask" });
		expect((await submessagesOf(as(bob), direct))[0].content).toBe('{"widget_type": "todo", "extra_data": {"task_list_title": "", "tasks": [{"task": "Task", "desc": ""}]}}');
	});

	test("other messages get none", async () => {
		for (const content of ["this is an ordinary message", "/bogus_command", "/me shrugs", "use /poll", "/polls are fun", "/Poll Q"]) {
			expect(await submessagesOf(as(alice), await poll(alice, content))).toEqual([]);
		}
	});

	test("the message event carries the widget", async () => {
		const queues = await eventQueues(as, [bob], { register: { event_types: JSON.stringify(["message"]) } });
		const id = await poll(alice, "/poll Lunch?\nPizza");
		const [event] = await queues(bob);
		expect(event.message.submessages).toEqual([{ msg_type: "widget", content: '{"widget_type": "poll", "extra_data": {"question": "Lunch?", "options": ["Pizza"]}}', message_id: id, sender_id: alice.user_id, id: expect.any(Number) }]);
	});

	test("widget_content: an explicit zform takes the place of the content's", async () => {
		const zform = { type: "choices", heading: "Options:", choices: [{ short_name: "A", long_name: "Apple", reply: "apple" }] };
		const id = await sendMessage(as(alice), { type: "channel", to: general, topic: "forms", content: "/poll ignored", widget_content: JSON.stringify({ widget_type: "zform", extra_data: zform }) });
		const [widget] = await submessagesOf(as(alice), id);
		expect(widget.content).toBe('{"widget_type": "zform", "extra_data": {"type": "choices", "heading": "Options:", "choices": [{"short_name": "A", "long_name": "Apple", "reply": "apple"}]}}');
	});

	test("a bad widget_content is refused in Zulip's words, storing nothing", async () => {
		const send = (widget_content: string) => () => as(alice).post("/messages", { type: "channel", to: general, topic: "forms", content: "x", widget_content });
		await snap.refused(send("{{{{{{"), 400, "BAD_REQUEST", "Widgets: API programmer sent invalid JSON content");
		await snap.refused(send(JSON.stringify({ color: "red" })), 400, "BAD_REQUEST", "Widgets: widget_type is not in widget_content");
		await snap.refused(send("5"), 400, "BAD_REQUEST", "Widgets: widget_content is not a dict");
		await snap.refused(send(JSON.stringify({ widget_type: "x" })), 400, "BAD_REQUEST", "Widgets: extra_data is not in widget_content");
		await snap.refused(send(JSON.stringify({ widget_type: "zform", extra_data: 4 })), 400, "BAD_REQUEST", "Widgets: extra_data is not a dict");
		await snap.refused(send(JSON.stringify({ widget_type: "poll", extra_data: {} })), 400, "BAD_REQUEST", "Widgets: unknown widget type: poll");
		await snap.refused(send(JSON.stringify({ widget_type: "zform", extra_data: {} })), 400, "BAD_REQUEST", "Widgets: zform is missing type field");
		await snap.refused(send(JSON.stringify({ widget_type: "zform", extra_data: { type: "bogus" } })), 400, "BAD_REQUEST", "Widgets: unknown zform type: bogus");
		await snap.refused(send(JSON.stringify({ widget_type: "zform", extra_data: { type: "choices", heading: "h", choices: [99] } })), 400, "BAD_REQUEST", 'Widgets: extra_data["choices"][0] is not a dict');
		await snap.refused(send(JSON.stringify({ widget_type: "zform", extra_data: { type: "choices", heading: "h", choices: [{ long_name: "a", reply: "b" }] } })), 400, "BAD_REQUEST", 'Widgets: short_name key is missing from extra_data["choices"][0]');
	});
});

describe("POST /submessage", () => {
	let queues: QueueReader;
	beforeAll(async () => {
		queues = await eventQueues(as, [alice, bob, dave], { register: { event_types: JSON.stringify(["submessage"]) } });
	});

	test("votes, a new option and the author's question edit: in GET /messages in ID order, and as events to those who have the message only", async () => {
		const id = await poll(alice, "/poll Preference?\n\nyes\nno", vault);
		await Promise.all([queues(alice), queues(bob), queues(dave)]);
		const steps: Array<[Account, Record<string, unknown>]> = [
			[bob, { type: "vote", key: "canned,0", vote: 1 }],
			[bob, { type: "new_option", idx: 1, option: "maybe" }],
			[alice, { type: "vote", key: `${bob.user_id},1`, vote: 1 }],
			[alice, { type: "question", question: "Tabs or spaces?" }],
			[bob, { type: "vote", key: "canned,0", vote: -1 }],
		];
		for (const [who, data] of steps) expectSuccess(await post(who, id, data));
		const all = await submessagesOf(as(bob), id);
		expect(all.slice(1)).toEqual(steps.map(([who, data]) => ({ msg_type: "widget", content: JSON.stringify(data), message_id: id, sender_id: who.user_id, id: expect.any(Number) })));
		const ids = all.map((s) => s.id);
		expect([...ids].sort((a, b) => a - b)).toEqual(ids);
		const expected = all.slice(1).map((s) => ({ type: "submessage", msg_type: "widget", message_id: id, submessage_id: s.id, sender_id: s.sender_id, content: s.content }));
		expect(await queues(alice)).toEqual(expected);
		expect(await queues(bob)).toEqual(expected);
		// Dave is not in the private channel: he neither sees the message nor hears of it.
		expect(await queues(dave)).toEqual([]);
		await snap.refused(() => post(dave, id, { type: "vote", key: "canned,0", vote: 1 }), 400, "BAD_REQUEST", "Invalid message(s)");
	});

	test("only the author edits a poll's question or a task list's title", async () => {
		const id = await poll(alice, "/poll Preference?\n\nyes\nno");
		await snap.refused(() => post(bob, id, { type: "question", question: "Tabs or spaces?" }), 400, "BAD_REQUEST", "You can't edit a question unless you are the author.");
		const todo = await poll(alice, "/todo School Work");
		await snap.refused(() => post(bob, todo, { type: "new_task_list_title", title: "Mine" }), 400, "BAD_REQUEST", "You can't edit the task list title unless you are the author.");
		expectSuccess(await post(alice, todo, { type: "new_task_list_title", title: "School Work" }));
		expectSuccess(await post(bob, todo, { type: "new_task", key: 7, task: "eat", desc: "", completed: false }));
		expectSuccess(await post(bob, todo, { type: "strike", key: "5,9" }));
		expect((await submessagesOf(as(alice), todo)).map((s) => s.sender_id)).toEqual([alice.user_id, alice.user_id, bob.user_id, bob.user_id]);
	});

	test("bad poll data is refused in Zulip's words and changes nothing", async () => {
		const id = await poll(alice, "/poll Preference?\n\nyes\nno");
		const refused = (content: string, msg: string) => snap.refused(() => post(alice, id, content), 400, "BAD_REQUEST", msg);
		await refused("bogus", "Invalid json for submessage");
		await refused('""', "poll data is not a dict");
		await refused("[]", "poll data is not a dict");
		await refused("{}", "type key is missing from poll data");
		await refused('{"type": 5}', 'poll data["type"] is not a string');
		await refused('{"type": "bogus"}', "Unknown type for poll data: bogus");
		await refused('{"type": "vote"}', "key key is missing from poll data");
		await refused('{"type": "vote", "key": 5, "vote": 1}', 'poll data["key"] is not a string');
		await refused('{"type": "vote", "key": "1,1,", "vote": 99}', 'Invalid poll data["vote"]');
		await refused('{"type": "vote", "key": "1,1", "vote": 1, "extra": 2}', "Unexpected arguments: extra");
		await refused('{"type": "question"}', "question key is missing from poll data");
		await refused('{"type": "question", "question": 7}', 'poll data["question"] is not a string');
		await refused('{"type": "new_option", "idx": 7, "option": 999}', 'poll data["option"] is not a string');
		await refused('{"type": "new_option", "idx": -1, "option": "pizza"}', 'poll data["idx"] is too small');
		await refused('{"type": "new_option", "idx": 1001, "option": "pizza"}', 'poll data["idx"] is too large');
		await refused('{"type": "new_option", "idx": "bogus", "option": "maybe"}', 'poll data["idx"] is not an integer');
		await refused('{"type": "new_option", "idx": 1.0, "option": "maybe"}', 'poll data["idx"] is not an integer');
		// The server checks types, not options: a vote for an option nobody added is stored.
		expectSuccess(await post(alice, id, { type: "vote", key: "99,99", vote: 1 }));
	});

	test("bad to-do data is refused in Zulip's words and changes nothing", async () => {
		const id = await poll(alice, "/todo");
		const refused = (content: string, msg: string) => snap.refused(() => post(alice, id, content), 400, "BAD_REQUEST", msg);
		await refused('{"type": "bogus"}', "Unknown type for todo data: bogus");
		await refused('{"type": "new_task"}', "key key is missing from todo data");
		await refused('{"type": "new_task", "key": 7, "task": 7, "desc": "", "completed": false}', 'todo data["task"] is not a string');
		await refused('{"type": "new_task", "key": -1, "task": "eat", "desc": "", "completed": false}', 'todo data["key"] is too small');
		await refused('{"type": "new_task", "key": 1001, "task": "eat", "desc": "", "completed": false}', 'todo data["key"] is too large');
		await refused('{"type": "new_task", "key": 1, "task": "eat", "desc": "", "completed": 0}', 'todo data["completed"] is not a boolean');
		await refused('{"type": "strike"}', "key key is missing from todo data");
		await refused('{"type": "strike", "key": 999}', 'todo data["key"] is not a string');
	});

	test("bad parameters, unknown and inaccessible messages, and messages without a widget", async () => {
		const id = await poll(alice, "/poll Q");
		const plain = await poll(alice, "just words");
		const vote = JSON.stringify({ type: "vote", key: "canned,0", vote: 1 });
		await snap.refused(() => as(bob).post("/submessage", { msg_type: "widget", content: vote }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'message_id' argument");
		await snap.refused(() => as(bob).post("/submessage", { message_id: id, content: vote }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'msg_type' argument");
		await snap.refused(() => as(bob).post("/submessage", { message_id: id, msg_type: "widget" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'content' argument");
		await snap.refused(() => post(bob, "abc", vote), 400, "BAD_REQUEST", "message_id is not an integer");
		await snap.refused(() => post(bob, 99_999_999, vote), 400, "BAD_REQUEST", "Invalid message(s)");
		const secret = await poll(alice, "/poll secret?", vault);
		await snap.refused(() => post(dave, secret, vote), 400, "BAD_REQUEST", "Invalid message(s)");
		// Someone else's message without submessages: nothing to attach to.
		await snap.refused(() => post(bob, plain, vote), 400, "BAD_REQUEST", "You cannot attach a submessage to this message.");
		const direct = await sendMessage(as(alice), { type: "direct", to: JSON.stringify([bob.user_id]), content: "hi" });
		await snap.refused(() => post(dave, direct, vote), 400, "BAD_REQUEST", "Invalid message(s)");
		const res = await as(bob).post("/submessage", { message_id: id, msg_type: "widget", content: vote, bogus: 1 });
		expectSuccess(res);
		expect(res.body.ignored_parameters_unsupported).toEqual(["bogus"]);
	});

	test("as in Zulip, a message's sender may attach the first submessage to any own message; then others may add theirs, unchecked", async () => {
		const plain = await poll(alice, "just words");
		expectSuccess(await post(alice, plain, { anything: [1, 2] }, "custom"));
		expectSuccess(await post(bob, plain, "7", "custom"));
		expect((await submessagesOf(as(bob), plain)).map((s) => [s.msg_type, s.sender_id, s.content])).toEqual([
			["custom", alice.user_id, '{"anything":[1,2]}'],
			["custom", bob.user_id, "7"],
		]);
	});
});

describe("editing and deleting a widget message", () => {
	test("its content cannot be edited; its topic can", async () => {
		const id = await poll(alice, "/poll Q\nA");
		await snap.refused(() => as(alice).patch(`/messages/${id}`, { content: "changed" }), 400, "BAD_REQUEST", "Widgets cannot be edited.");
		expectSuccess(await as(alice).patch(`/messages/${id}`, { topic: "moved polls" }));
	});

	test("deleting the message deletes its submessages", async () => {
		const id = await poll(alice, "/poll Q\nA");
		expectSuccess(await post(bob, id, { type: "vote", key: "canned,0", vote: 1 }));
		expect(await storedSubmessages(id)).toHaveLength(2);
		expectSuccess(await owner.delete(`/messages/${id}`));
		expect(await storedSubmessages(id)).toEqual([]);
	});
});

describe("what the official mobile app reads (zulip-flutter's decoders)", () => {
	test("a poll's submessages in message objects and submessage events decode as the app decodes them", async () => {
		const queues = await eventQueues(as, [bob], { register: { event_types: JSON.stringify(["submessage"]) } });
		const id = await poll(alice, "/poll Dinner?\nSoup\nSalad");
		const events: Array<Record<string, unknown>> = [
			{ type: "new_option", idx: 1, option: "Stew" },
			{ type: "vote", key: "canned,1", vote: 1 },
			{ type: "vote", key: `${bob.user_id},1`, vote: -1 },
			{ type: "question", question: "Supper?" },
		];
		// Only the author edits the question; Bob does the rest.
		for (const data of events) expectSuccess(await post(data.type === "question" ? alice : bob, id, data));
		const listed = await as(bob).get("/messages", { anchor: id, num_before: 0, num_after: 0 });
		const [first, ...rest] = (listed.body.messages[0].submessages as Array<Record<string, unknown>>).map(submessageFromJson);
		expect(first).toEqual({ msgType: "widget", content: expect.any(String), senderId: alice.user_id });
		expect(widgetDataFromJson(JSON.parse(first.content))).toEqual({ widgetType: "poll", extraData: { question: "Dinner?", options: ["Soup", "Salad"] } });
		expect(rest.map((s) => pollEventFromJson(JSON.parse(s.content)))).toEqual([
			{ type: "new_option", option: "Stew", idx: 1 },
			{ type: "vote", key: "canned,1", op: "add" },
			{ type: "vote", key: `${bob.user_id},1`, op: "remove" },
			{ type: "question", question: "Supper?" },
		]);
		// The app reads the event's ID too, which the reader here leaves out: read the queue raw.
		const raw = await as(bob).get("/events", { queue_id: queues.queueOf(bob), last_event_id: -1, dont_block: true });
		const decoded = (raw.body.events as Array<Record<string, unknown>>).filter((e) => e.type === "submessage").map(submessageEventFromJson);
		expect(decoded.map((e) => [e.messageId, e.msgType, e.senderId])).toEqual(rest.map((s) => [id, "widget", s.senderId]));
		expect(decoded.map((e) => pollEventFromJson(JSON.parse(e.content)).type)).toEqual(["new_option", "vote", "vote", "question"]);
	});

	test("a to-do list reads as a widget the app does not support yet, without failing", async () => {
		const id = await poll(alice, "/todo Chores\nDishes: tonight");
		const [widget] = await submessagesOf(as(alice), id);
		const decoded = submessageFromJson(widget);
		expect(widgetDataFromJson(JSON.parse(decoded.content))).toEqual({ widgetType: "unknown", json: { widget_type: "todo", extra_data: { task_list_title: "Chores", tasks: [{ task: "Dishes", desc: "tonight" }] } } });
	});
});
