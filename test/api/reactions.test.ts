// Emoji reactions: adding and removing by name or code, matching by code, the errors, access,
// and reactions as message objects show them.
import { randomBytes } from "node:crypto";
import mongoose from "mongoose";
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, sendMessage, type Client } from "../support/http";
import { recordEvents } from "../support/events";

let app: TestApp;
let owner: Client;
let alice: Account;
let bob: Account;
let dave: Account;
const as = (a: Account) => client(app.baseUrl, a);
let general: number;
const dbPrefix = `t${randomBytes(4).toString("hex")}`;

const send = sendMessage;
async function reactionsOn(c: Client, id: number) {
	const res = await c.get(`/messages/${id}`);
	expectSuccess(res);
	return res.body.message.reactions;
}
const channelMessage = () => send(as(alice), { type: "channel", to: general, topic: "t", content: "react to me" });

beforeAll(async () => {
	app = await startTestApp({ dbPrefix });
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	dave = await app.createUser({ full_name: "Dave" });
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [alice.user_id, bob.user_id] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "vault" }], invite_only: true }));
	general = (await owner.get("/get_stream_id", { stream: "general" })).body.stream_id;
});
afterAll(() => app.stop());

describe("adding reactions", () => {
	test("by name: the code and type are looked up; message objects show it, with the deprecated user object", async () => {
		const id = await channelMessage();
		expectSuccess(await as(bob).post(`/messages/${id}/reactions`, { emoji_name: "octopus" }));
		const expected = {
			emoji_name: "octopus",
			emoji_code: "1f419",
			reaction_type: "unicode_emoji",
			user_id: bob.user_id,
			user: { id: bob.user_id, email: bob.email, full_name: "Bob", is_mirror_dummy: false },
		};
		expect(await reactionsOn(as(alice), id)).toEqual([expected]);
		const listed = await as(alice).get("/messages", { anchor: id, num_before: 0, num_after: 0 });
		expect(listed.body.messages[0].reactions).toEqual([expected]);
	});

	test("by code: another name of the same emoji joins the reaction already there, under its name", async () => {
		const id = await channelMessage();
		expectSuccess(await as(alice).post(`/messages/${id}/reactions`, { emoji_name: "thumbs_up", emoji_code: "1f44d", reaction_type: "unicode_emoji" }));
		expectSuccess(await as(bob).post(`/messages/${id}/reactions`, { emoji_name: "+1", emoji_code: "1f44d" }));
		const all = await reactionsOn(as(bob), id);
		expect(all.map((r: { user_id: number; emoji_name: string }) => [r.user_id, r.emoji_name])).toEqual([
			[alice.user_id, "thumbs_up"],
			[bob.user_id, "thumbs_up"],
		]);
		// The same emoji again, by either name, is a duplicate.
		expectError(await as(bob).post(`/messages/${id}/reactions`, { emoji_name: "+1" }), 400, "REACTION_ALREADY_EXISTS", "Reaction already exists.");
		expectError(await as(bob).post(`/messages/${id}/reactions`, { emoji_name: "like" }), 400, "REACTION_ALREADY_EXISTS");
		expect(await reactionsOn(as(bob), id)).toHaveLength(2);
	});

	test("the service emoji", async () => {
		const id = await channelMessage();
		expectSuccess(await as(bob).post(`/messages/${id}/reactions`, { emoji_name: "zulip", emoji_code: "zulip", reaction_type: "service_extra_emoji" }));
		expect((await reactionsOn(as(bob), id))[0]).toMatchObject({ emoji_name: "zulip", emoji_code: "zulip", reaction_type: "service_extra_emoji" });
		expectError(await as(alice).post(`/messages/${id}/reactions`, { emoji_name: "zulip", emoji_code: "other", reaction_type: "service_extra_emoji" }), 400, "BAD_REQUEST", "Invalid emoji code");
	});

	test("bad emoji and bad parameters change nothing", async () => {
		const id = await channelMessage();
		const post = (params: Record<string, unknown>) => as(bob).post(`/messages/${id}/reactions`, params);
		expectError(await post({ emoji_name: "no_such_emoji" }), 400, "BAD_REQUEST", "Emoji 'no_such_emoji' does not exist");
		expectError(await post({ emoji_name: "octopus", emoji_code: "zzzz" }), 400, "BAD_REQUEST", "Invalid emoji code");
		expectError(await post({ emoji_name: "smile", emoji_code: "1f419" }), 400, "BAD_REQUEST", "Invalid emoji name.");
		expectError(await post({ emoji_name: "party", emoji_code: "1", reaction_type: "realm_emoji" }), 400, "BAD_REQUEST", "Invalid custom emoji.");
		expectError(await post({ emoji_name: "octopus", reaction_type: "weird_emoji" }), 400, "BAD_REQUEST", "Invalid reaction_type");
		expectError(await post({}), 400, "REQUEST_VARIABLE_MISSING", "Missing 'emoji_name' argument");
		expectError(await as(bob).post("/messages/abc/reactions", { emoji_name: "octopus" }), 404, "NOT_FOUND");
		expect(await reactionsOn(as(bob), id)).toEqual([]);
	});

	test("content access: unknown messages, others' direct messages and private channels are refused", async () => {
		const dm = await send(as(alice), { type: "direct", to: [app.owner.user_id], content: "secret" });
		const vaulted = await send(owner, { type: "channel", to: "vault", topic: "t", content: "secret" });
		for (const id of [999_999, dm, vaulted]) {
			expectError(await as(bob).post(`/messages/${id}/reactions`, { emoji_name: "octopus" }), 400, "BAD_REQUEST", "Invalid message(s)");
		}
		expect(await reactionsOn(owner, dm)).toEqual([]);
		expect(await reactionsOn(owner, vaulted)).toEqual([]);
	});

	test("reacting to a public channel message never received makes it part of the user's history", async () => {
		const id = await channelMessage();
		expectSuccess(await as(dave).post(`/messages/${id}/reactions`, { emoji_name: "eyes" }));
		const res = await as(dave).get(`/messages/${id}`);
		expect(res.body.message.flags).toEqual(["read", "historical"]);
		expect(res.body.message.reactions).toHaveLength(1);
	});
});

describe("Zulip's emoji names", () => {
	const named = (r: { emoji_name: string; emoji_code: string; user_id: number }) => [r.emoji_name, r.emoji_code, r.user_id];

	test("canonical names and aliases name Zulip's code points; the reaction keeps the name it was made with", async () => {
		const id = await channelMessage();
		for (const emoji_name of ["working_on_it", "thumbs_up", "smile", "big_smile", "heart", "tada"]) {
			expectSuccess(await as(bob).post(`/messages/${id}/reactions`, { emoji_name }));
		}
		// An alias by code too, and another user's vote by yet another alias joins the first name.
		expectSuccess(await as(alice).post(`/messages/${id}/reactions`, { emoji_name: "tools", emoji_code: "1f6e0", reaction_type: "unicode_emoji" }));
		expectSuccess(await as(alice).post(`/messages/${id}/reactions`, { emoji_name: "like" }));
		expect((await reactionsOn(as(bob), id)).map(named)).toEqual([
			["working_on_it", "1f6e0", bob.user_id],
			["thumbs_up", "1f44d", bob.user_id],
			["smile", "1f642", bob.user_id],
			["big_smile", "1f604", bob.user_id],
			["heart", "2764", bob.user_id],
			["tada", "1f389", bob.user_id],
			["working_on_it", "1f6e0", alice.user_id],
			["thumbs_up", "1f44d", alice.user_id],
		]);
	});

	test("iamcal's names that Zulip does not have are refused, and a name must belong to its code", async () => {
		const id = await channelMessage();
		const post = (params: Record<string, unknown>) => as(bob).post(`/messages/${id}/reactions`, params);
		for (const emoji_name of ["thumbsup", "slightly_smiling_face", "flag-ad"]) {
			expectError(await post({ emoji_name }), 400, "BAD_REQUEST", `Emoji '${emoji_name}' does not exist`);
		}
		// iamcal's smile is 1f604; Zulip's smile is 1f642.
		expectError(await post({ emoji_name: "smile", emoji_code: "1f604" }), 400, "BAD_REQUEST", "Invalid emoji name.");
		expectError(await post({ emoji_name: "thumbsup", emoji_code: "1f44d" }), 400, "BAD_REQUEST", "Invalid emoji name.");
		expect(await reactionsOn(as(bob), id)).toEqual([]);
	});

	test("removing by an alias, or by code with an alias as the name, removes the reaction made under another name", async () => {
		const id = await channelMessage();
		expectSuccess(await as(bob).post(`/messages/${id}/reactions`, { emoji_name: "+1" }));
		expectSuccess(await as(bob).post(`/messages/${id}/reactions`, { emoji_name: "working_on_it" }));
		expectSuccess(await as(alice).post(`/messages/${id}/reactions`, { emoji_name: "thumbs_up" }));
		expectSuccess(await as(bob).delete(`/messages/${id}/reactions`, { emoji_name: "like" }));
		expectSuccess(await as(bob).delete(`/messages/${id}/reactions`, { emoji_name: "hammer_and_wrench", emoji_code: "1f6e0", reaction_type: "unicode_emoji" }));
		expect((await reactionsOn(as(bob), id)).map(named)).toEqual([["+1", "1f44d", alice.user_id]]);
		expectError(await as(bob).delete(`/messages/${id}/reactions`, { emoji_name: "tools" }), 400, "REACTION_DOES_NOT_EXIST", "Reaction doesn't exist.");
		expectError(await as(bob).delete(`/messages/${id}/reactions`, { emoji_name: "thumbsup" }), 400, "BAD_REQUEST", "Emoji 'thumbsup' does not exist");
		expect(await reactionsOn(as(bob), id)).toHaveLength(1);
	});
});

describe("removing reactions", () => {
	test("by name, by code, or by code alone; only one's own", async () => {
		const id = await channelMessage();
		expectSuccess(await as(alice).post(`/messages/${id}/reactions`, { emoji_name: "octopus" }));
		expectSuccess(await as(bob).post(`/messages/${id}/reactions`, { emoji_name: "octopus" }));
		expectSuccess(await as(bob).post(`/messages/${id}/reactions`, { emoji_name: "heart" }));
		expectSuccess(await as(bob).delete(`/messages/${id}/reactions`, { emoji_name: "octopus" }));
		expectSuccess(await as(bob).delete(`/messages/${id}/reactions`, { emoji_code: "2764-fe0f", reaction_type: "unicode_emoji" }));
		expect((await reactionsOn(as(bob), id)).map((r: { user_id: number }) => r.user_id)).toEqual([alice.user_id]);
		// Bob's are gone; Alice's stays.
		expectError(await as(bob).delete(`/messages/${id}/reactions`, { emoji_name: "octopus" }), 400, "REACTION_DOES_NOT_EXIST", "Reaction doesn't exist.");
		expect(await reactionsOn(as(bob), id)).toHaveLength(1);
	});

	test("errors: nothing named, unknown emoji, invalid codes, inaccessible messages", async () => {
		const id = await channelMessage();
		expectSuccess(await as(bob).post(`/messages/${id}/reactions`, { emoji_name: "octopus" }));
		const del = (params: Record<string, unknown>) => as(bob).delete(`/messages/${id}/reactions`, params);
		expectError(await del({}), 400, "BAD_REQUEST", "At least one of the following arguments must be present: emoji_name, emoji_code");
		expectError(await del({ emoji_name: "no_such_emoji" }), 400, "BAD_REQUEST", "Emoji 'no_such_emoji' does not exist");
		expectError(await del({ emoji_code: "zzzz" }), 400, "BAD_REQUEST", "Invalid emoji code");
		expectError(await del({ emoji_code: "1", reaction_type: "realm_emoji" }), 400, "BAD_REQUEST", "Invalid emoji code");
		expectError(await del({ emoji_name: "smile" }), 400, "REACTION_DOES_NOT_EXIST");
		const vaulted = await send(owner, { type: "channel", to: "vault", topic: "t", content: "secret" });
		expectError(await as(bob).delete(`/messages/${vaulted}/reactions`, { emoji_name: "octopus" }), 400, "BAD_REQUEST", "Invalid message(s)");
		expect(await reactionsOn(as(bob), id)).toHaveLength(1);
	});

	test("adding and removing are announced on the bus", async () => {
		const seen = await recordEvents(app, ["messages.reactionChanged"]);
		const id = await channelMessage();
		expectSuccess(await as(bob).post(`/messages/${id}/reactions`, { emoji_name: "octopus" }));
		expectSuccess(await as(bob).delete(`/messages/${id}/reactions`, { emoji_name: "octopus" }));
		const user = { user_id: bob.user_id, email: bob.email, full_name: expect.any(String) };
		const reaction = { user_id: bob.user_id, user, message_id: id, emoji_name: "octopus", emoji_code: "1f419", reaction_type: "unicode_emoji" };
		// With everyone who has the message, whose clients hear of it.
		const holders = { user_ids: expect.arrayContaining([alice.user_id, bob.user_id]) };
		expect(seen.map((e) => e.payload)).toEqual([
			{ op: "add", ...reaction, ...holders },
			{ op: "remove", ...reaction, ...holders },
		]);
	});

	test("deleting a message deletes its reactions", async () => {
		const id = await channelMessage();
		expectSuccess(await as(bob).post(`/messages/${id}/reactions`, { emoji_name: "octopus" }));
		expectSuccess(await as(alice).delete(`/messages/${id}`));
		expectError(await as(bob).delete(`/messages/${id}/reactions`, { emoji_name: "octopus" }), 400, "BAD_REQUEST", "Invalid message(s)");
	});
});

// Pages read reactions only for messages not flagged as never reacted to (no_reactions).
describe("reactions on a page of messages", () => {
	const page = async () => {
		const res = await as(bob).get("/messages", { anchor: "newest", num_before: 5, num_after: 0, narrow: [["channel", "general"], ["topic", "page"]] });
		expectSuccess(res);
		return new Map((res.body.messages as Array<{ id: number; reactions: Array<{ emoji_name: string; user_id: number }> }>).map((m) => [m.id, m.reactions.map((r) => [r.user_id, r.emoji_name])]));
	};
	const pageMessage = () => send(as(alice), { type: "channel", to: general, topic: "page", content: "on a page" });

	test("each message's own reactions, after the first, after all are removed, and after one again", async () => {
		const [plain, reacted] = [await pageMessage(), await pageMessage()];
		expect(await page()).toEqual(new Map([[plain, []], [reacted, []]]));
		expectSuccess(await as(bob).post(`/messages/${reacted}/reactions`, { emoji_name: "octopus" }));
		expect(await page()).toEqual(new Map([[plain, []], [reacted, [[bob.user_id, "octopus"]]]]));
		expectSuccess(await as(bob).delete(`/messages/${reacted}/reactions`, { emoji_name: "octopus" }));
		expect(await page()).toEqual(new Map([[plain, []], [reacted, []]]));
		expectSuccess(await as(alice).post(`/messages/${reacted}/reactions`, { emoji_name: "heart" }));
		expect(await page()).toEqual(new Map([[plain, []], [reacted, [[alice.user_id, "heart"]]]]));
	});

	test("reacting removes the flag; a page shows the reactions of a message without it", async () => {
		const id = await pageMessage();
		expectSuccess(await as(bob).post(`/messages/${id}/reactions`, { emoji_name: "octopus" }));
		const conn = await mongoose.createConnection(process.env.TEST_MONGO_URL!, { dbName: `${dbPrefix}_messages` }).asPromise();
		try {
			const messages = conn.db!.collection("messages");
			expect((await messages.findOne({ _id: id as never }))!.no_reactions).toBeUndefined();
			// A message sent and never reacted to carries it (stored before it existed or imported, none does).
			expect((await messages.findOne({ _id: (await pageMessage()) as never }))!.no_reactions).toBe(true);
			expect((await page()).get(id)).toEqual([[bob.user_id, "octopus"]]);
		} finally {
			await conn.close();
		}
	});
});
