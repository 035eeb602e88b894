// The bus calls behind the requests on the hot path, recorded on the broker (every call between
// services, the gateway's included, goes through broker.call): POST /messages rendering with a
// linkifier and an emoji, GET /messages, POST /register. They are counted with the caches warm
// (what every request pays but a node's first render, which asks for the linkifiers and the custom
// emoji once). The figures are in docs/operations.md ("Bus calls per request").
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectSuccess, sendMessage } from "../support/http";

let app: TestApp;
let member: Account;
const as = (a: Account) => client(app.baseUrl, a);

/** The actions called on the bus while `fn` runs, with how many times each, by name. */
async function callsDuring(fn: () => Promise<unknown>): Promise<Record<string, number>> {
	const broker = app.node.broker as unknown as { call: (target: unknown, ...rest: unknown[]) => unknown };
	const original = broker.call;
	const seen: Record<string, number> = {};
	broker.call = function (this: unknown, target: unknown, ...rest: unknown[]) {
		// The gateway calls with the endpoint it resolved, the services with the action's name.
		const name = typeof target === "string" ? target : ((target as { action?: { name?: string } }).action?.name ?? "?");
		seen[name] = (seen[name] ?? 0) + 1;
		return original.call(this, target, ...rest);
	};
	try {
		await fn();
	} finally {
		broker.call = original;
	}
	return Object.fromEntries(Object.entries(seen).sort(([a], [b]) => a.localeCompare(b)));
}

const total = (calls: Record<string, number>) => Object.values(calls).reduce((a, b) => a + b, 0);
const send = () => sendMessage(as(member), { type: "stream", to: "dev", topic: "calls", content: "see #42 :smile:" });

beforeAll(async () => {
	app = await startTestApp();
	member = await app.createUser({});
	expectSuccess(await as(app.owner).post("/realm/filters", { pattern: "#(?P<id>[0-9]+)", url_template: "https://tracker.example.com/{id}" }));
	expectSuccess(await as(member).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "dev" }]) }));
});
afterAll(async () => {
	await app.stop();
});

test("POST /messages, GET /messages and POST /register: the calls each makes", async () => {
	await send();
	const warmSend = await callsDuring(send);
	const list = await callsDuring(async () => expectSuccess(await as(member).get("/messages", { anchor: "newest", num_before: 20, num_after: 0, narrow: JSON.stringify([]) })));
	const register = await callsDuring(async () => expectSuccess(await as(member).post("/register", {})));
	const figures = { "POST /messages": warmSend, "GET /messages": list, "POST /register": register };
	// Printed for docs/operations.md.
	process.stdout.write(`${JSON.stringify(Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, { total: total(v), calls: v }])), null, 1)}\n`);

	// The catalog is never asked on a warm message path: the messages service keeps its lists.
	for (const calls of [warmSend, list]) expect(Object.keys(calls).filter((n) => n.startsWith("catalog."))).toEqual([]);
	// POST /register asks the catalog for its part, in parallel with the other services' parts.
	expect(register["catalog.registerState"]).toBe(1);
});
