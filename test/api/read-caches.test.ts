// The per-node caches behind a message page (the channels service's channels and subscriptions, the
// users service's shown users): a page read twice costs those services no store read the second
// time, and the page read right after any change to what they hold shows the change.
import { Collection } from "mongodb";
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, sendMessage, type Client } from "../support/http";

let app: TestApp;
let owner: Client;
let alice: Account;
let bob: Account;
const as = (a: Account) => client(app.baseUrl, a);

/** The store reads (finds: findOne and exists too) each service's database received while `fn` ran. */
async function readsDuring(fn: () => Promise<unknown>): Promise<Record<string, number>> {
	const counts: Record<string, number> = {};
	const prefix = `${app.node.config.dbPrefix}_`;
	const find = Collection.prototype.find;
	const spy = jest.spyOn(Collection.prototype, "find").mockImplementation(function (this: Collection, ...args: unknown[]) {
		if (this.dbName.startsWith(prefix)) {
			const service = this.dbName.slice(prefix.length);
			counts[service] = (counts[service] ?? 0) + 1;
		}
		return (find as (...a: unknown[]) => ReturnType<Collection["find"]>).apply(this, args);
	} as Collection["find"]);
	try {
		await fn();
	} finally {
		spy.mockRestore();
	}
	return counts;
}

const page = (c: Client, channelId: number, extra: Record<string, unknown> = {}) =>
	c.get("/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow: [{ operator: "channel", operand: channelId }], ...extra });

async function pageOk(c: Client, channelId: number, extra: Record<string, unknown> = {}) {
	const res = await page(c, channelId, extra);
	expectSuccess(res);
	return res.body.messages as Array<Record<string, any>>;
}

async function newChannel(name: string, principals: number[], extra: Record<string, unknown> = {}): Promise<number> {
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name }], principals, ...extra }));
	const id = (await owner.get("/get_stream_id", { stream: name })).body.stream_id as number;
	await sendMessage(owner, { type: "stream", to: id, topic: "t", content: `in ${name}` });
	return id;
}

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
});
afterAll(() => app.stop());

test("a page read again reads nothing of the channels and users databases: only the messages", async () => {
	const id = await newChannel("steady", [1, alice.user_id]);
	await sendMessage(as(alice), { type: "stream", to: id, topic: "t", content: "from alice" });
	await pageOk(as(bob), id);
	const counts = await readsDuring(() => pageOk(as(bob), id));
	// The window of messages and the caller's rows (no reactions read: nobody reacted).
	expect(counts).toEqual({ messages: 2 });
});

describe("the page read right after a change shows it", () => {
	test("a channel renamed: the new name", async () => {
		const id = await newChannel("before rename", [1, alice.user_id]);
		expect((await pageOk(as(alice), id))[0].display_recipient).toBe("before rename");
		expectSuccess(await owner.patch(`/streams/${id}`, { new_name: "after rename" }));
		expect((await pageOk(as(alice), id))[0].display_recipient).toBe("after rename");
	});

	// A channel's history is read through the lookup; a caller without it sees only the messages it received.
	const contents = async (c: Client, id: number) => (await pageOk(c, id)).filter((m) => m.subject === "t").map((m) => m.content as string);

	test("a channel made private: its history hidden from a member not subscribed", async () => {
		const id = await newChannel("going private", [1], { history_public_to_subscribers: true });
		expect(await contents(as(bob), id)).toEqual(["<p>in going private</p>"]);
		expectSuccess(await owner.patch(`/streams/${id}`, { is_private: true }));
		expect(await contents(as(bob), id)).toEqual([]);
	});

	test("a private channel made public: its history shown to a member not subscribed", async () => {
		const id = await newChannel("going public", [1], { invite_only: true, history_public_to_subscribers: true });
		expect(await contents(as(bob), id)).toEqual([]);
		expectSuccess(await owner.patch(`/streams/${id}`, { is_private: false }));
		expect(await contents(as(bob), id)).toEqual(["<p>in going public</p>"]);
	});

	test("a member leaving a private channel: its later history hidden; subscribed again: shown", async () => {
		const id = await newChannel("private membership", [1, alice.user_id], { invite_only: true, history_public_to_subscribers: true });
		expect(await contents(as(alice), id)).toEqual(["<p>in private membership</p>"]);
		expectSuccess(await as(alice).delete("/users/me/subscriptions", { subscriptions: ["private membership"] }));
		await sendMessage(owner, { type: "stream", to: id, topic: "t", content: "while away" });
		// What she received stays hers.
		expect(await contents(as(alice), id)).toEqual(["<p>in private membership</p>"]);
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "private membership" }], principals: [alice.user_id] }));
		expect(await contents(as(alice), id)).toEqual(["<p>in private membership</p>", "<p>while away</p>"]);
	});

	test("a member added by an administrator: the earlier history shown; removed: hidden", async () => {
		const id = await newChannel("added by admin", [1], { invite_only: true, history_public_to_subscribers: true });
		await pageOk(as(bob), id);
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "added by admin" }], principals: [bob.user_id] }));
		expect(await contents(as(bob), id)).toEqual(["<p>in added by admin</p>"]);
		expectSuccess(await owner.delete("/users/me/subscriptions", { subscriptions: ["added by admin"], principals: [bob.user_id] }));
		expect(await contents(as(bob), id)).toEqual([]);
	});

	test("an archived channel: its history stays readable, as in Zulip", async () => {
		const id = await newChannel("archived", [1, alice.user_id]);
		await pageOk(as(alice), id);
		expectSuccess(await owner.delete(`/streams/${id}`));
		expect((await pageOk(as(alice), id))[0].display_recipient).toBe("archived");
	});

	describe("a sender's change", () => {
		let id: number;
		beforeAll(async () => {
			id = await newChannel("senders", [1, alice.user_id]);
			await sendMessage(as(alice), { type: "stream", to: id, topic: "t", content: "from alice" });
		});
		const aliceMessage = async () => (await pageOk(owner, id, { client_gravatar: false })).find((m) => m.sender_id === alice.user_id)!;

		test("renamed: the new sender_full_name", async () => {
			expect((await aliceMessage()).sender_full_name).toBe("Alice");
			expectSuccess(await as(alice).patch("/settings", { full_name: "Alice Renamed" }));
			expect((await aliceMessage()).sender_full_name).toBe("Alice Renamed");
		});

		test("a new avatar: the new avatar_url", async () => {
			const before = (await aliceMessage()).avatar_url as string;
			expect(before).toMatch(/version=1$/);
			expectSuccess(await as(alice).delete("/users/me/avatar"));
			expect((await aliceMessage()).avatar_url).toMatch(/version=2$/);
		});

		test("the address hidden from everyone: the placeholder sender_email", async () => {
			expect((await aliceMessage()).sender_email).toBe(alice.email);
			expectSuccess(await as(alice).patch("/settings", { email_address_visibility: 4 }));
			expect((await aliceMessage()).sender_email).toMatch(new RegExp(`^user${alice.user_id}@`));
		});

		test("deactivated: a lookup through the same cache answers 'User is deactivated'", async () => {
			expectSuccess(await owner.get(`/users/${alice.user_id}/subscriptions/${id}`));
			expectSuccess(await owner.delete(`/users/${alice.user_id}`));
			expectError(await owner.get(`/users/${alice.user_id}/subscriptions/${id}`), 400, "BAD_REQUEST", "User is deactivated");
			// The page still shows the messages of a deactivated sender.
			expect((await aliceMessage()).sender_full_name).toBe("Alice Renamed");
		});
	});
});
