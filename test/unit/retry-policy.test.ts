// Only reads are retried when their replica went away: a write may have completed, and doing it
// twice (a second copy of a message) is worse than reporting the failure.
import { Errors, ServiceBroker } from "moleculer";
import { brokerOptions, markRetries, RETRIED_ACTIONS } from "../../moleculer.config";
import { loadConfig } from "../../shared/config";
import { SERVICES } from "../../services";

test("a read is retried after its replica went away; a write is not", async () => {
	const options = brokerOptions(loadConfig({ logLevel: "error", transporter: "" }), "retry-test");
	const broker = new ServiceBroker({ ...options, logger: false, retryPolicy: { ...options.retryPolicy, delay: 1, maxDelay: 1 } });
	const calls = { list: 0, send: 0 };
	const gone = () => new Errors.RequestRejectedError({ action: "x", nodeID: "gone" });
	broker.createService(
		markRetries({
			name: "messages",
			actions: {
				list: { handler: () => (++calls.list < 3 ? Promise.reject(gone()) : { ok: true }) },
				send: { handler: () => (++calls.send < 3 ? Promise.reject(gone()) : { ok: true }) },
			},
		}),
	);
	await broker.start();
	try {
		await expect(broker.call("messages.list")).resolves.toEqual({ ok: true });
		await expect(broker.call("messages.send")).rejects.toBeInstanceOf(Errors.RequestRejectedError);
		expect(calls).toEqual({ list: 3, send: 1 });
	} finally {
		await broker.stop();
	}
});

test("every action named as retried exists, and reads only", () => {
	const config = { ...loadConfig({ transporter: "" }), mongoUrl: "mongodb://unused" };
	const names = new Set(Object.values(SERVICES).flatMap(({ factory }) => {
		const schema = factory(config);
		return Object.keys(schema.actions ?? {}).map((a) => `${schema.name}.${a}`);
	}));
	for (const name of RETRIED_ACTIONS) expect({ name, exists: names.has(name) }).toEqual({ name, exists: true });
	for (const write of ["messages.send", "messages.updateFlags", "users.create", "channels.subscribe"]) expect(RETRIED_ACTIONS.has(write)).toBe(false);
});
