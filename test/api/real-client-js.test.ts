// zulip-js (npm), the JavaScript client, used through its own methods from credentials or a
// zuliprc: profile, channels, sending, reading with a narrow, an event queue and reactions. It
// sends every POST as multipart/form-data and every other method's parameters in the query
// string, as Zulip accepts them.
import fs from "node:fs";
import path from "node:path";
import zulip from "zulip-js";
import { startTestApp, type TestApp } from "../support/app";
import { client, sendMessage } from "../support/http";

let app: TestApp;
beforeAll(async () => {
	app = await startTestApp();
});
afterAll(() => app.stop());

test("zulip-js, from a password or a zuliprc to an event queue and a reaction", async () => {
	const origin = new URL(app.baseUrl).origin;
	const me = await app.createUser({ full_name: "JS User", password: "js-password-1" });
	const friend = await app.createUser({ full_name: "Friend" });

	// With a password, it fetches the API key itself (POST /fetch_api_key).
	const byPassword = await zulip({ realm: origin, username: me.email, password: "js-password-1" });
	expect(byPassword.config.apiKey).toBe(me.api_key);

	const rc = path.join(app.dataDir, "js-zuliprc");
	fs.writeFileSync(rc, `[api]\nemail=${me.email}\nkey=${me.api_key}\nsite=${origin}\n`);
	const z = await zulip({ zuliprc: rc });

	expect(await z.users.me.getProfile()).toMatchObject({ result: "success", user_id: me.user_id, email: me.email, full_name: "JS User" });
	expect(await z.users.me.subscriptions.add({ subscriptions: [{ name: "js-test" }], principals: [me.user_id, friend.user_id] })).toMatchObject({ result: "success" });
	const streams = await z.streams.retrieve();
	expect(streams.result).toBe("success");
	expect(streams.streams.map((s: { name: string }) => s.name)).toContain("js-test");

	const queue = await z.queues.register({ event_types: ["message", "reaction"] });
	expect(queue).toMatchObject({ result: "success", queue_id: expect.any(String), last_event_id: -1 });

	const sent = await z.messages.send({ type: "stream", to: "js-test", topic: "hello", content: "sent with **zulip-js**" });
	expect(sent).toMatchObject({ result: "success", id: expect.any(Number) });
	const theirs = await sendMessage(client(app.baseUrl, friend), { type: "stream", to: "js-test", topic: "hello", content: "an answer" });
	await sendMessage(client(app.baseUrl, friend), { type: "stream", to: "js-test", topic: "elsewhere", content: "not in the narrow" });

	const read = await z.messages.retrieve({ anchor: "newest", num_before: 10, num_after: 0, narrow: [{ operator: "channel", operand: "js-test" }, { operator: "topic", operand: "hello" }] });
	expect(read.result).toBe("success");
	expect(read.messages.map((m: { id: number; content: string }) => [m.id, m.content])).toEqual([
		[sent.id, "<p>sent with <strong>zulip-js</strong></p>"],
		[theirs, "<p>an answer</p>"],
	]);

	expect(await z.reactions.add({ message_id: theirs, emoji_name: "octopus" })).toMatchObject({ result: "success" });

	// The queue holds the messages sent after it was registered, then the reaction.
	const events: Array<Record<string, any>> = [];
	for (let last = -1, end = Date.now() + 30_000; events.length < 4 && Date.now() < end; ) {
		const got = await z.events.retrieve({ queue_id: queue.queue_id, last_event_id: last, dont_block: true });
		expect(got.result).toBe("success");
		events.push(...got.events.filter((e: { type: string }) => e.type !== "heartbeat"));
		last = events.at(-1)?.id ?? last;
		if (events.length < 4) await new Promise((r) => setTimeout(r, 100));
	}
	expect(events.map((e) => (e.type === "message" ? ["message", e.message.id] : [e.type, e.op, e.message_id, e.emoji_name]))).toEqual([
		["message", sent.id],
		["message", theirs],
		["message", expect.any(Number)],
		["reaction", "add", theirs, "octopus"],
	]);

	const reacted = await z.messages.retrieve({ anchor: theirs, num_before: 0, num_after: 0 });
	expect(reacted.messages[0].reactions).toEqual([expect.objectContaining({ emoji_name: "octopus", emoji_code: "1f419", user_id: me.user_id })]);
	expect(await z.queues.deregister({ queue_id: queue.queue_id })).toMatchObject({ result: "success" });
});
