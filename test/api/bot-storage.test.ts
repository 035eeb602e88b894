// Bot storage through HTTP (GET, PUT and DELETE /bot_storage), as Zulip's storage views: bots
// only, string keys to string values, "Key does not exist." for an unknown key, the per-bot quota
// (USER_STATE_SIZE_LIMIT, set small here) refused whole; every refusal changes nothing. Then the
// real client: zulip_bots' stock incrementor bot and the Python client's storage methods.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectSuccess } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";

const LIMIT = 100;
let app: TestApp;
let owner: Account;
let bot: Account;
let other: Account;
let snap: Snapshotter;
const as = (a: Account) => client(app.baseUrl, a);
const put = (a: Account, storage: unknown) => as(a).request("PUT", "/bot_storage", { storage: typeof storage === "string" ? storage : JSON.stringify(storage) });
const get = (a: Account, keys?: unknown) => as(a).get("/bot_storage", keys === undefined ? {} : { keys: typeof keys === "string" ? keys : JSON.stringify(keys) });
const del = (a: Account, keys?: unknown) => as(a).delete("/bot_storage", keys === undefined ? {} : { keys: typeof keys === "string" ? keys : JSON.stringify(keys) });

async function stored(a: Account) {
	const res = await get(a);
	expectSuccess(res);
	return res.body.storage;
}

beforeAll(async () => {
	app = await startTestApp({ botStorageLimit: LIMIT });
	owner = await app.createUser({ full_name: "Bot Owner" });
	bot = await app.createUser({ full_name: "Storage Bot", is_bot: true, bot_owner_id: owner.user_id });
	other = await app.createUser({ full_name: "Other Bot", is_bot: true, bot_owner_id: owner.user_id });
	snap = await snapshotter(app);
});
afterAll(async () => {
	await snap.close();
	await app.stop();
});

test("store, read some or all, update, remove some or all, each bot its own", async () => {
	expectSuccess(await put(bot, { "key 1": "value 1", "key 2": "value 2", "key 3": "value 3" }));
	const some = await get(bot, ["key 3", "key 1"]);
	expectSuccess(some);
	expect(some.body.storage).toEqual({ "key 3": "value 3", "key 1": "value 1" });
	expect(Object.keys(some.body.storage)).toEqual(["key 3", "key 1"]);
	expect(await stored(bot)).toEqual({ "key 1": "value 1", "key 2": "value 2", "key 3": "value 3" });
	expect(await stored(other)).toEqual({});

	expectSuccess(await put(bot, { "key 1": "new value", "key 4": "value 4" }));
	expect(await stored(bot)).toEqual({ "key 1": "new value", "key 2": "value 2", "key 3": "value 3", "key 4": "value 4" });
	// An empty list names no key: nothing read, nothing removed.
	expect((await get(bot, [])).body.storage).toEqual({});
	expectSuccess(await del(bot, []));
	// Empty keys and values, and keys that are names of Object.prototype, are entries like any other.
	expectSuccess(await put(other, '{"": "", "__proto__": "p", "constructor": "c"}'));
	expect(await stored(other)).toEqual(JSON.parse('{"": "", "__proto__": "p", "constructor": "c"}'));
	expect((await get(other, ["__proto__"])).body.storage).toEqual(JSON.parse('{"__proto__": "p"}'));

	expectSuccess(await del(bot, ["key 1", "key 2"]));
	expect(await stored(bot)).toEqual({ "key 3": "value 3", "key 4": "value 4" });
	expectSuccess(await del(bot));
	expect(await stored(bot)).toEqual({});
	expect(Object.keys(await stored(other))).toHaveLength(3);
	expectSuccess(await del(other));
});

test("humans are refused before their parameters are read", async () => {
	for (const who of [owner, app.owner]) {
		await snap.refused(() => put(who, { a: "b" }), 400, "BAD_REQUEST", "Must be a bot user");
		await snap.refused(() => as(who).request("PUT", "/bot_storage", {}), 400, "BAD_REQUEST", "Must be a bot user");
		await snap.refused(() => get(who), 400, "BAD_REQUEST", "Must be a bot user");
		await snap.refused(() => del(who, "not json"), 400, "BAD_REQUEST", "Must be a bot user");
	}
});

test("bad parameters and unknown keys are refused in Zulip's words and change nothing", async () => {
	expectSuccess(await put(bot, { kept: "yes", also: "kept" }));
	await snap.refused(() => as(bot).request("PUT", "/bot_storage", {}), 400, "REQUEST_VARIABLE_MISSING", "Missing 'storage' argument");
	await snap.refused(() => put(bot, "not json"), 400, "BAD_REQUEST", 'Argument "storage" is not valid JSON.');
	await snap.refused(() => put(bot, ["a", "b"]), 400, "BAD_REQUEST", "storage is not a dict");
	await snap.refused(() => put(bot, "null"), 400, "BAD_REQUEST", "storage is not a dict");
	await snap.refused(() => put(bot, "5"), 400, "BAD_REQUEST", "storage is not a dict");
	await snap.refused(() => put(bot, { fine: "x", foo: [1, 2, 3] }), 400, "BAD_REQUEST", 'storage["foo"] is not a string');
	await snap.refused(() => put(bot, { foo: 1 }), 400, "BAD_REQUEST", 'storage["foo"] is not a string');
	await snap.refused(() => put(bot, { foo: null }), 400, "BAD_REQUEST", 'storage["foo"] is not a string');

	for (const [name, send] of [
		["GET", get],
		["DELETE", del],
	] as const) {
		await snap.refused(() => send(bot, "not json"), 400, "BAD_REQUEST", 'Argument "keys" is not valid JSON.');
		await snap.refused(() => send(bot, { kept: 1 }), 400, "BAD_REQUEST", "keys is not a list");
		await snap.refused(() => send(bot, [1]), 400, "BAD_REQUEST", "keys[0] is not a string");
		await snap.refused(() => send(bot, ["kept", "nonexistent key"]), 400, "BAD_REQUEST", "Key does not exist.");
		expect(name).toBeTruthy();
	}
	// Zulip counts the rows found against the keys named: a key named twice is refused too.
	await snap.refused(() => del(bot, ["kept", "kept"]), 400, "BAD_REQUEST", "Key does not exist.");
	expect(await stored(bot)).toEqual({ kept: "yes", also: "kept" });
	expectSuccess(await del(bot));
});

test("the quota counts keys and values in code points; a request past it writes nothing", async () => {
	const key = "capacity-filling entry";
	expectSuccess(await put(bot, { [key]: "x".repeat(LIMIT - key.length) }));
	// Zulip's own test: 13 + 19 characters more than the limit allows.
	await snap.refused(() => put(bot, { "too much data": "a few bits too long" }), 400, "BAD_REQUEST", "Request exceeds storage limit by 32 characters. The limit is 100 characters.");
	// Several entries are refused whole, the ones that would fit included.
	await snap.refused(() => put(bot, { a: "", [key]: "x".repeat(LIMIT - key.length) }), 400, "BAD_REQUEST", "Request exceeds storage limit by 1 characters. The limit is 100 characters.");
	// Replacing a value counts the new one instead of the old.
	expectSuccess(await put(bot, { [key]: "y".repeat(LIMIT - key.length) }));
	expectSuccess(await put(bot, { [key]: "short" }));
	expectSuccess(await put(bot, { k: "z".repeat(LIMIT - key.length - 5 - 1) }));
	await snap.refused(() => put(bot, { k2: "" }), 400, "BAD_REQUEST", "Request exceeds storage limit by 2 characters. The limit is 100 characters.");
	// Each bot has its own quota.
	expectSuccess(await put(other, { "another big entry": "x".repeat(LIMIT - 40) }));
	expectSuccess(await put(other, { "normal entry": "abcd" }));
	expectSuccess(await del(bot));
	expectSuccess(await del(other));

	// A character beyond the BMP is one, as Python counts it, though two UTF-16 units.
	const emoji = "\u{1F600}";
	expectSuccess(await put(bot, { e: emoji.repeat(LIMIT - 1) }));
	expect((await get(bot, ["e"])).body.storage.e).toBe(emoji.repeat(LIMIT - 1));
	await snap.refused(() => put(bot, { f: "" }), 400, "BAD_REQUEST", "Request exceeds storage limit by 1 characters. The limit is 100 characters.");
	expectSuccess(await del(bot));
});

test("concurrent writes of one new key leave one entry", async () => {
	const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => put(bot, { race: `v${i}` })));
	for (const res of answers) expectSuccess(res);
	const all = await stored(bot);
	expect(Object.keys(all)).toEqual(["race"]);
	expect(all.race).toMatch(/^v[0-7]$/);
	expectSuccess(await del(bot));
});

const PYTHON = path.resolve(__dirname, "../../node_modules/.cache/zulip-python/bin/python");
const run = promisify(execFile);

// zulip_bots' stock incrementor bot, run by the package's own ExternalBotHandler: its storage
// through StateHandler (PUT and GET /bot_storage), its reply and its edit of the reply.
const SCRIPT = `
import json, sys, zulip
from zulip_bots.lib import ExternalBotHandler
from zulip_bots.bots.incrementor.incrementor import IncrementorHandler
bot = zulip.Client(config_file=sys.argv[1])
human = zulip.Client(config_file=sys.argv[2])
out = {}
handler = ExternalBotHandler(bot, None, None)
incrementor = IncrementorHandler()
incrementor.initialize(handler)
out["initialized"] = bot.get_storage()
sent = human.send_message({"type": "private", "to": [handler.email], "content": "@**Storage Bot** count"})
message = bot.get_raw_message(sent["id"])["message"]
incrementor.handle_message(message, handler)
out["once"] = bot.get_storage()
incrementor.handle_message(message, handler)
out["twice"] = bot.get_storage({"keys": ["number"]})
out["reply"] = bot.get_raw_message(json.loads(out["once"]["storage"]["message_id"]))
out["cleared"] = bot.call_endpoint(url="bot_storage", method="DELETE")
out["client_put"] = bot.update_storage({"storage": {"entry 1": "value 1", "entry 2": "value 2"}})
out["client_get"] = bot.get_storage({"keys": ["entry 2"]})
out["client_missing"] = bot.get_storage({"keys": ["entry 9"]})
out["human"] = human.get_storage()
print(json.dumps(out))
`;

test("zulip_bots' incrementor bot and the Python client's storage methods", async () => {
	const origin = new URL(app.baseUrl).origin;
	const rc = (a: Account, name: string) => {
		const file = path.join(app.dataDir, name);
		fs.writeFileSync(file, `[api]\nemail=${a.email}\nkey=${a.api_key}\nsite=${origin}\n`);
		return file;
	};
	const { stdout } = await run(PYTHON, ["-c", SCRIPT, rc(bot, "bot-zuliprc"), rc(owner, "owner-zuliprc")]);
	const out = JSON.parse(stdout);
	expect(out.initialized).toMatchObject({ result: "success", storage: { number: "0", message_id: "null" } });
	expect(out.once.storage.number).toBe("1");
	const replyId = JSON.parse(out.once.storage.message_id);
	expect(typeof replyId).toBe("number");
	expect(out.twice).toMatchObject({ result: "success", storage: { number: "2" } });
	// The second mention edited the bot's reply rather than sending another.
	expect(out.reply).toMatchObject({ result: "success", raw_content: "2" });
	expect(out.client_put.result).toBe("success");
	expect(out.client_get).toMatchObject({ result: "success", storage: { "entry 2": "value 2" } });
	expect(out.client_missing).toMatchObject({ result: "error", code: "BAD_REQUEST", msg: "Key does not exist." });
	expect(out.human).toMatchObject({ result: "error", code: "BAD_REQUEST", msg: "Must be a bot user" });
});
