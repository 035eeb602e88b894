// A chunk's bytes cross a call as the Buffer itself within one process, as base64 between two
// (shared/bus-bytes.ts): here a service that echoes what it got, called from its own node and
// from another one over Moleculer's in-memory transporter (which serializes as NATS does).
import { ServiceBroker, type Context } from "moleculer";
import { bytesCall, fromBus, replyBytes } from "../../shared/bus-bytes";

const echo = {
	name: "echo",
	actions: {
		bytes: (ctx: Context<{ data: unknown }>) => ({ got: Buffer.isBuffer(ctx.params.data) ? "buffer" : typeof ctx.params.data, data: replyBytes(ctx, fromBus(ctx.params.data)) }),
	},
};

const broker = (nodeID: string, transporter: string | null) => new ServiceBroker({ nodeID, transporter, serializer: "JSON", logger: false });

test("within one process the Buffer itself goes both ways", async () => {
	const node = broker("one", null);
	node.createService(echo);
	await node.start();
	try {
		const data = Buffer.from("a chunk");
		const call = bytesCall(node, "echo");
		expect(call.opts.nodeID).toBe("one");
		const res = await node.call<{ got: string; data: unknown }, { data: unknown }>("echo.bytes", { data: call.encode(data) }, call.opts);
		expect(res.got).toBe("buffer");
		expect(res.data).toBe(data);
	} finally {
		await node.stop();
	}
});

test("between two processes the bytes travel as base64 and arrive whole", async () => {
	const gateway = broker("gateway", "Fake");
	const uploads = broker("uploads", "Fake");
	uploads.createService(echo);
	await Promise.all([gateway.start(), uploads.start()]);
	try {
		await gateway.waitForServices("echo");
		const data = Buffer.from([0, 1, 2, 250, 255]);
		const call = bytesCall(gateway, "echo");
		expect(call.opts.nodeID).toBeUndefined();
		const res = await gateway.call<{ got: string; data: unknown }, { data: unknown }>("echo.bytes", { data: call.encode(data) }, call.opts);
		expect(res.got).toBe("string");
		expect(typeof res.data).toBe("string");
		expect(fromBus(res.data).equals(data)).toBe(true);
	} finally {
		await Promise.all([gateway.stop(), uploads.stop()]);
	}
});

test("anything but a Buffer or a string is refused", () => {
	expect(() => fromBus({ type: "Buffer", data: [1] })).toThrow("Invalid chunk");
});
