// A chunk's bytes cross a call as a Buffer (shared/bus-bytes.ts): by reference within one process,
// as raw bytes after the packet's JSON between two, and in base64 to a node of an earlier version
// (plain JSON, no frames). Here a service that echoes what it got, over Moleculer's in-memory
// transporter, which serializes as NATS does.
import { ServiceBroker, type BrokerOptions, type Context } from "moleculer";
import { bytesForOlderNodes, FramedJSON, fromBus, READS_FRAMES } from "../../shared/bus-bytes";

const echo = {
	name: "echo",
	actions: {
		bytes: (ctx: Context<{ data: unknown }>) => ({ got: Buffer.isBuffer(ctx.params.data) ? "buffer" : typeof ctx.params.data, data: fromBus(ctx.params.data) }),
	},
};

/** An uploads service of an earlier version: bytes in base64 both ways. */
const olderEcho = {
	name: "echo",
	actions: {
		bytes: (ctx: Context<{ data: unknown }>) => ({ got: typeof ctx.params.data, data: ctx.params.data }),
	},
};

type Echoed = { got: string; data: unknown };

const current = (nodeID: string, transporter: BrokerOptions["transporter"] = "Fake") =>
	new ServiceBroker({ nodeID, transporter, serializer: new FramedJSON(), metadata: { ...READS_FRAMES }, middlewares: [bytesForOlderNodes()], logger: false });
/** A node as they were before frames: JSON, bytes in base64. */
const older = (nodeID: string) => new ServiceBroker({ nodeID, transporter: "Fake", serializer: "JSON", logger: false });

async function withNodes(nodes: ServiceBroker[], run: () => Promise<void>): Promise<void> {
	await Promise.all(nodes.map((n) => n.start()));
	try {
		await run();
	} finally {
		await Promise.all(nodes.map((n) => n.stop()));
	}
}

test("a frame carries the Buffers of a request's params after its JSON; other packets are plain JSON", () => {
	const serializer = new FramedJSON();
	const data = Buffer.from([0, 1, 2, 250, 255]);
	const frame = serializer.serialize({ id: "1", params: { n: 3, data } }, "REQ");
	expect(frame[0]).toBe(0x01);
	const back = serializer.deserialize(frame, "REQ") as { params: { n: number; data: Buffer } };
	expect(back.params.n).toBe(3);
	expect(back.params.data.equals(data)).toBe(true);
	expect(serializer.serialize({ id: "1", params: { n: 3 } }, "REQ").toString()).toBe(JSON.stringify({ id: "1", params: { n: 3 } }));
});

test("within one process the Buffer itself goes both ways", async () => {
	const node = current("one", null);
	node.createService(echo);
	await withNodes([node], async () => {
		const data = Buffer.from("a chunk");
		const res = await node.call<Echoed, { data: Buffer }>("echo.bytes", { data });
		expect(res.got).toBe("buffer");
		expect(res.data).toBe(data);
	});
});

test("between two processes the bytes travel raw both ways and arrive whole", async () => {
	const gateway = current("gateway");
	const uploads = current("uploads");
	uploads.createService(echo);
	await withNodes([gateway, uploads], async () => {
		await gateway.waitForServices("echo");
		const data = Buffer.from([0, 1, 2, 250, 255]);
		const res = await gateway.call<Echoed, { data: Buffer }>("echo.bytes", { data });
		expect(res.got).toBe("buffer");
		expect(Buffer.isBuffer(res.data) && res.data.equals(data)).toBe(true);
	});
});

test("a node of an earlier version gets base64 and its base64 is taken", async () => {
	const gateway = current("gateway");
	const olderUploads = older("older-uploads");
	olderUploads.createService(olderEcho);
	await withNodes([gateway, olderUploads], async () => {
		await gateway.waitForServices("echo");
		const data = Buffer.from([0, 1, 2, 250, 255]);
		const res = await gateway.call<Echoed, { data: Buffer }>("echo.bytes", { data });
		expect(res.got).toBe("string");
		expect(fromBus(res.data).equals(data)).toBe(true);
	});
	const olderGateway = older("older-gateway");
	const uploads = current("uploads");
	uploads.createService(echo);
	await withNodes([olderGateway, uploads], async () => {
		await olderGateway.waitForServices("echo");
		const res = await olderGateway.call<Echoed, { data: string }>("echo.bytes", { data: Buffer.from("abc").toString("base64") });
		expect(res.got).toBe("string");
		expect(fromBus(res.data).toString()).toBe("abc");
	});
});

test("anything but a Buffer or a string is refused", () => {
	expect(() => fromBus({ type: "Buffer", data: [1] })).toThrow("Invalid chunk");
});
