// A real Zulip client from the registry (the official Python `zulip` package, installed by
// test/support/prerequisites.sh) used from start to use, the way a bot or a terminal client
// does: a zuliprc, register, channels and their topics, the first unread messages (as
// zulip-terminal asks for them), reactions by Zulip's emoji names, sending, editing and reading
// back; then presence, a rendering, the custom emoji and a user status. Every call goes through the package's
// own methods.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { startTestApp, type TestApp } from "../support/app";

const run = promisify(execFile);
const PYTHON = path.resolve(__dirname, "../../node_modules/.cache/zulip-python/bin/python");

let app: TestApp;
beforeAll(async () => {
	app = await startTestApp();
});
afterAll(() => app.stop());

const SCRIPT = `
import json, sys, zulip
me = zulip.Client(config_file=sys.argv[1], client="ZulipTerminal/0.7.0")
friend = zulip.Client(config_file=sys.argv[2], client="ZulipPython")
out = {}
out["register"] = me.register(client_capabilities={"notification_settings_null": True, "bulk_message_deletion": True, "user_avatar_url_field_optional": True, "stream_typing_notifications": True, "user_settings_object": True, "empty_topic_name": True})
out["subscribe"] = me.add_subscriptions([{"name": "client-test", "description": "From the Python client"}])
out["streams"] = me.get_streams()
stream_id = me.get_stream_id("client-test")["stream_id"]
out["sent"] = me.send_message({"type": "stream", "to": "client-test", "topic": "hello", "content": "first **message**"})
mid = out["sent"]["id"]
out["dm"] = friend.send_message({"type": "private", "to": [me.email], "content": "psst"})
out["topics"] = me.get_stream_topics(stream_id)
out["first_unread"] = me.get_messages({"anchor": 0, "use_first_unread_anchor": True, "num_before": 25, "num_after": 25, "apply_markdown": True, "narrow": []})
out["reactions"] = [me.add_reaction({"message_id": mid, "emoji_name": name}) for name in ["+1", "working_on_it", "smile", "tada", "heart"]]
out["edit"] = me.update_message({"message_id": mid, "content": "edited", "topic": "renamed"})
out["raw"] = me.get_raw_message(mid)
out["history"] = me.get_message_history(mid)
out["topic"] = me.get_messages({"anchor": "newest", "num_before": 10, "num_after": 0, "narrow": [{"operator": "channel", "operand": "client-test"}, {"operator": "topic", "operand": "renamed"}]})
out["read"] = me.update_message_flags({"messages": [out["dm"]["id"]], "op": "add", "flag": "read"})
out["again"] = me.register(event_types=["recent_private_conversations", "message"], fetch_event_types=["recent_private_conversations", "message", "presence"])
print(json.dumps(out))
`;

test("the Python zulip package, from a zuliprc to reading back an edited message", async () => {
	const origin = new URL(app.baseUrl).origin;
	const me = await app.createUser({ full_name: "Terminal User" });
	const friend = await app.createUser({ full_name: "Friend" });
	const rc = (a: { email: string; api_key: string }, name: string) => {
		const file = path.join(app.dataDir, name);
		fs.writeFileSync(file, `[api]\nemail=${a.email}\nkey=${a.api_key}\nsite=${origin}\n`);
		return file;
	};
	const { stdout } = await run(PYTHON, ["-c", SCRIPT, rc(me, "me-zuliprc"), rc(friend, "friend-zuliprc")]);
	const out = JSON.parse(stdout);
	for (const [call, answer] of Object.entries(out)) {
		for (const a of Array.isArray(answer) ? answer : [answer]) expect({ call, result: (a as { result: string }).result }).toEqual({ call, result: "success" });
	}

	// What the mobile and terminal clients need from register to start.
	expect(out.register).toMatchObject({ user_id: me.user_id, recent_private_conversations: [], presences: {} });
	for (const key of ["realm_users", "subscriptions", "unread_msgs", "max_message_id", "zulip_feature_level", "realm_emoji", "user_settings", "jitsi_server_url"]) expect(out.register).toHaveProperty(key);

	const created = out.streams.streams.find((s: { name: string }) => s.name === "client-test");
	expect(created).toBeDefined();
	// The channel's first message: Notification Bot's creation notice, read for its creator.
	const notice = created.first_message_id;
	expect(out.topics.topics).toEqual([
		{ name: "hello", max_id: out.sent.id },
		{ name: "channel events", max_id: notice },
	]);
	// The flag wins over the anchor: the first unread message is the friend's (one's own are read).
	expect(out.first_unread.anchor).toBe(out.dm.id);
	expect(out.first_unread.messages.map((m: { id: number }) => m.id)).toEqual([notice, out.sent.id, out.dm.id]);

	expect(out.raw).toMatchObject({ raw_content: "edited", message: { content: "<p>edited</p>", subject: "renamed" } });
	expect(out.history.message_history).toHaveLength(2);
	const [read] = out.topic.messages;
	expect(read).toMatchObject({ id: out.sent.id, content: "<p>edited</p>", subject: "renamed" });
	expect(read.reactions.map((r: { emoji_name: string; emoji_code: string }) => [r.emoji_name, r.emoji_code])).toEqual([
		["+1", "1f44d"],
		["working_on_it", "1f6e0"],
		["smile", "1f642"],
		["tada", "1f389"],
		["heart", "2764"],
	]);

	expect(out.read.messages).toEqual([out.dm.id]);
	expect(out.again.recent_private_conversations).toEqual([{ user_ids: [friend.user_id], max_message_id: out.dm.id }]);
}, 120_000);

const PRESENCE_SCRIPT = `
import json, sys, zulip
me = zulip.Client(config_file=sys.argv[1], client="ZulipTerminal/0.7.0")
friend = zulip.Client(config_file=sys.argv[2], client="ZulipPython")
out = {}
out["mine"] = me.update_presence({"status": "active", "new_user_input": True})
out["friend"] = friend.update_presence({"status": "idle", "ping_only": False, "new_user_input": False, "last_update_id": -1})
out["realm"] = friend.get_realm_presence()
out["user"] = friend.get_user_presence(me.email)
out["rendered"] = me.render_message({"content": "**bold** hi @**Presence Friend**"})
out["emoji"] = me.get_realm_emoji()
# The package has no method of its own for a status: its generic call, as status-setting tools make it.
out["set_status"] = me.call_endpoint(url="users/me/status", method="POST", request={"status_text": "in a meeting", "emoji_name": "calendar"})
out["status"] = friend.call_endpoint(url="users/%d/status" % me.get_profile()["user_id"], method="GET")
print(json.dumps(out))
`;

test("the Python zulip package's presence, render, custom emoji and user status calls", async () => {
	const origin = new URL(app.baseUrl).origin;
	const me = await app.createUser({ full_name: "Present User" });
	const friend = await app.createUser({ full_name: "Presence Friend" });
	const rc = (a: { email: string; api_key: string }, name: string) => {
		const file = path.join(app.dataDir, name);
		fs.writeFileSync(file, `[api]\nemail=${a.email}\nkey=${a.api_key}\nsite=${origin}\n`);
		return file;
	};
	const { stdout } = await run(PYTHON, ["-c", PRESENCE_SCRIPT, rc(me, "present-zuliprc"), rc(friend, "friend2-zuliprc")]);
	const out = JSON.parse(stdout);
	for (const [call, answer] of Object.entries(out)) expect({ call, result: (answer as { result: string }).result }).toEqual({ call, result: "success" });

	// Legacy form by email for the older call, modern by ID for last_update_id.
	expect(out.mine.presences[me.email]).toMatchObject({ aggregated: { client: "website", status: "active" } });
	expect(out.friend.presences[String(me.user_id)]).toEqual({ active_timestamp: expect.any(Number), idle_timestamp: expect.any(Number) });
	expect(out.friend.presences).toHaveProperty(String(friend.user_id));
	expect(out.friend.presence_last_update_id).toBeGreaterThan(0);
	expect(out.realm.presences[me.email].aggregated.status).toBe("active");
	expect(out.user.presence.aggregated.status).toBe("active");
	expect(out.rendered.rendered).toBe(`<p><strong>bold</strong> hi <span class="user-mention" data-user-id="${friend.user_id}">@Presence Friend</span></p>`);
	expect(out.emoji.emoji).toEqual({});
	expect(out.status.status).toEqual({ status_text: "in a meeting", emoji_name: "calendar", emoji_code: "1f4c5", reaction_type: "unicode_emoji" });
});

const BOT_SCRIPT = `
import json, sys, zulip
me = zulip.Client(config_file=sys.argv[1], client="ZulipPython")
out = {}
# The package has no bot methods: its generic call, as integration set-up scripts make it.
out["created"] = me.call_endpoint(url="bots", method="POST", request={"full_name": "Python Made", "short_name": "pymade"})
out["bots"] = me.call_endpoint(url="bots", method="GET")
bot = zulip.Client(email="pymade-bot@" + sys.argv[2], api_key=out["created"]["api_key"], site=sys.argv[3])
out["bot_profile"] = bot.get_profile()
out["dm"] = bot.send_message({"type": "private", "to": [me.email], "content": "hello from a bot"})
out["regenerated"] = me.call_endpoint(url="bots/%d/api_key/regenerate" % out["created"]["user_id"], method="POST")
out["old_key"] = bot.get_profile()
print(json.dumps(out))
`;

test("the Python zulip package creates a bot through its generic call, and the bot works with its key until it is regenerated", async () => {
	const origin = new URL(app.baseUrl).origin;
	const me = await app.createUser({ full_name: "Bot Maker" });
	const file = path.join(app.dataDir, "maker-zuliprc");
	fs.writeFileSync(file, `[api]\nemail=${me.email}\nkey=${me.api_key}\nsite=${origin}\n`);
	const { stdout } = await run(PYTHON, ["-c", BOT_SCRIPT, file, "chat.test", origin]);
	const out = JSON.parse(stdout);
	for (const call of ["created", "bots", "bot_profile", "dm", "regenerated"]) expect({ call, result: out[call].result }).toEqual({ call, result: "success" });
	expect(out.bots.bots.map((b: { username: string }) => b.username)).toEqual(["pymade-bot@chat.test"]);
	expect(out.bot_profile).toMatchObject({ user_id: out.created.user_id, is_bot: true, bot_owner_id: me.user_id, email: "pymade-bot@chat.test" });
	expect(out.old_key).toMatchObject({ result: "error", code: "UNAUTHORIZED" });
});
