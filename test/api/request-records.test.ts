// A write the gateway calls again after losing its answer (services/api/lost-answers.ts) is done
// once: the call carries the same request key in its meta, and the service answers a key it has
// seen with the first call's answer (shared/request-records.ts; messages.send keeps the key on the
// message). The gateway's repeat happens only when a replica or the NATS connection is lost
// (test/cluster/nats-restart.test.ts); here the repeated calls are made on the broker, as the
// gateway makes them, and the state left behind is read through the API.
import { randomUUID } from "node:crypto";
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectSuccess, type Client } from "../support/http";
import type { Identity } from "../../shared/actions";

let app: TestApp;
let alice: Account;
let a: Client;
let identity: Identity;

beforeAll(async () => {
	app = await startTestApp();
	alice = await app.createUser({ full_name: "Alice" });
	a = client(app.baseUrl, alice);
	identity = await app.node.broker.call("users.authenticate", { email: alice.email, api_key: alice.api_key });
	expectSuccess(await client(app.baseUrl, app.owner).post("/users/me/subscriptions", { subscriptions: [{ name: "records" }], principals: [alice.user_id] }));
});
afterAll(() => app.stop());

const key = (action: string) => `${action}:${randomUUID()}`;
const draft = (content: string) => [{ type: "private", to: [alice.user_id], topic: "", content, timestamp: 1700000000 }];
const createDrafts = (content: string, requestKey: string) =>
	app.node.broker.call<{ ids: number[] }, unknown>("messages.createDrafts", { drafts: draft(content) }, { meta: { user: identity, request_key: requestKey } });

/** Alice's drafts with this content. */
async function draftsWith(content: string) {
	const r = await a.get("/drafts");
	expectSuccess(r);
	return (r.body.drafts as Array<{ id: number; content: string }>).filter((d) => d.content === content);
}

test("a write called again with its request key runs once and answers the first call's answer", async () => {
	const k = key("messages.createDrafts");
	const first = await createDrafts("again", k);
	const again = await createDrafts("again", k);
	expect(again).toEqual(first);
	expect((await draftsWith("again")).map((d) => d.id)).toEqual(first.ids);
});

test("two calls with one key at the same moment: one runs, the other waits for its answer", async () => {
	const k = key("messages.createDrafts");
	const [x, y] = await Promise.all([createDrafts("together", k), createDrafts("together", k)]);
	expect(y).toEqual(x);
	expect((await draftsWith("together")).map((d) => d.id)).toEqual(x.ids);
});

test("a call that failed leaves no key: the repeat runs", async () => {
	const k = key("messages.createDrafts");
	await expect(app.node.broker.call("messages.createDrafts", { drafts: [{}] }, { meta: { user: identity, request_key: k } })).rejects.toMatchObject({ code: 400 });
	const after = await createDrafts("after a failure", k);
	expect((await draftsWith("after a failure")).map((d) => d.id)).toEqual(after.ids);
});

test("a key is honoured only by the action it names; without a key every call runs", async () => {
	const other = key("messages.updateDraft");
	await createDrafts("not mine", other);
	await createDrafts("not mine", other);
	expect(await draftsWith("not mine")).toHaveLength(2);
	// Through the gateway each request has a key of its own: two posts, two drafts.
	expectSuccess(await a.post("/drafts", { drafts: JSON.stringify(draft("posted")) }));
	expectSuccess(await a.post("/drafts", { drafts: JSON.stringify(draft("posted")) }));
	expect(await draftsWith("posted")).toHaveLength(2);
});

test("messages.send called again with its request key stores one message, answered with its ID both times", async () => {
	const k = key("messages.send");
	const send = () => app.node.broker.call<{ id: number }, unknown>("messages.send", { type: "stream", to: "records", topic: "t", content: "sent once" }, { meta: { user: identity, request_key: k } });
	const [first, again] = [await send(), await send()];
	expect(again.id).toBe(first.id);
	const r = await a.get("/messages", { anchor: "newest", num_before: 10, num_after: 0, apply_markdown: false, narrow: [["channel", "records"]] });
	expectSuccess(r);
	expect((r.body.messages as Array<{ id: number; content: string }>).filter((m) => m.content === "sent once").map((m) => m.id)).toEqual([first.id]);
});
