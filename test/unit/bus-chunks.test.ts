// Packets over NATS's max_payload cross the bus in chunks (shared/bus-chunks.ts): split and put
// back together whatever the order, small packets untouched, an abandoned packet forgotten.
import { randomBytes } from "node:crypto";
import { busChunks, Reassembler, splitPacket } from "../../shared/bus-chunks";

type Send = (topic: string, data: Buffer, meta: { balanced?: boolean }) => Promise<unknown>;
type Receive = (cmd: string, data: Buffer) => unknown;

test("a packet split in chunks comes back whole, in any order, duplicates ignored", () => {
	const data = randomBytes(10_000);
	const chunks = splitPacket(data, "p1", 3000);
	expect(chunks).toHaveLength(4);
	expect(chunks.every((c) => Reassembler.isChunk(c) && c.length <= 3000 + 64)).toBe(true);
	const r = new Reassembler();
	expect(r.add(chunks[2])).toBeUndefined();
	expect(r.add(chunks[0])).toBeUndefined();
	expect(r.add(chunks[0])).toBeUndefined();
	expect(r.add(chunks[3])).toBeUndefined();
	expect(r.add(chunks[1])).toEqual(data);
	expect(r.size).toBe(0);
});

test("a packet whose last chunks never come is dropped after the time limit", async () => {
	const r = new Reassembler(20);
	r.add(splitPacket(randomBytes(100), "gone", 40)[0]);
	expect(r.size).toBe(1);
	await new Promise((res) => setTimeout(res, 50));
	expect(r.size).toBe(0);
});

test("the middleware: small and balanced packets pass whole; a large one goes in chunks and arrives whole", async () => {
	const mw = busChunks(1000) as unknown as { transporterSend(next: Send): Send; transporterReceive(next: Receive): Receive };
	const wire: Buffer[] = [];
	const send = mw.transporterSend(async (_topic, data) => wire.push(data));
	const delivered: Buffer[] = [];
	const receive = mw.transporterReceive((_cmd, data) => delivered.push(data));

	const small = Buffer.from(JSON.stringify({ ok: true }));
	await send("MOL.RES.n1", small, {});
	expect(wire).toEqual([small]);

	const large = Buffer.from(JSON.stringify({ text: "x".repeat(4500) }));
	await send("MOL.RES.n1", large, {});
	expect(wire.length).toBe(1 + 5);
	await send("MOL.REQB.a", large, { balanced: true });
	expect(wire.at(-1)).toBe(large);

	for (const packet of wire) receive("RES", packet);
	expect(delivered).toEqual([small, large, large]);
});
