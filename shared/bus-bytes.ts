// Bytes in a bus call's parameters or result (a file's chunks: services/api/file-routes.ts and
// services/uploads/actions/transfer.ts) travel as a Buffer, never as text.
//
// Decision, measured (README, "Files"): within one process Moleculer hands a call its params and
// result by reference, so a Buffer costs nothing there; across the network the bus serializer
// below sends a packet's Buffers as raw bytes after its JSON. Base64 in JSON, which Moleculer's
// JSON serializer forces, left behind per 255 KiB chunk a string a third larger, the packet's
// text and its copies on both sides, garbage that made a process's resident set grow by 9 to
// 37 MiB during one 25 MiB transfer; with raw bytes, by 0 to 3 MiB in most runs. No npm package
// is needed: a frame is JSON plus lengths (CBOR, MsgPack or Notepack would each need one).
//
// A node of an earlier version reads JSON only and sends chunks in base64: a node advertises that
// it reads frames (its metadata), bytes go to a node that does not as base64 (`bytesForOlderNodes`),
// and an action taking bytes accepts base64 too (`fromBus`), so a rolling upgrade keeps working.
import { Serializers, type Middleware, type ServiceBroker } from "moleculer";
import { badRequest } from "./errors";

/** A chunk's bytes as a call carries them: a Buffer, or base64 from a node of an earlier version. */
export type BusBytes = string | Buffer;

/** The bytes a call carried, in either form; anything else is refused. */
export function fromBus(data: unknown): Buffer {
	if (Buffer.isBuffer(data)) return data;
	if (typeof data === "string") return Buffer.from(data, "base64");
	throw badRequest("Invalid chunk");
}

/** The node metadata that says a node reads frames. */
export const READS_FRAMES = { busFrames: 1 };

/** A frame starts with this byte: a JSON packet never does, nor a chunk of bus-chunks.ts (0x00). */
const FRAME = 0x01;
type Packet = Record<string, unknown>;

/** Where a packet of `type` may carry bytes: a request's params, a response's data (top-level values only). */
function bytesSection(type: string): "params" | "data" | undefined {
	return type === "REQ" ? "params" : type === "RES" ? "data" : undefined;
}

/**
 * The top-level Buffers of a packet's params or data (none for any other packet). Only a plain
 * object's own values are looked at, so every other packet pays a glance at a few keys.
 */
function buffersOf(packet: Packet, type: string): { section: "params" | "data"; keys: string[] } | undefined {
	const section = bytesSection(type);
	const value = section && packet[section];
	if (!value || typeof value !== "object" || Buffer.isBuffer(value) || Array.isArray(value)) return undefined;
	let keys: string[] | undefined;
	for (const k in value) if (Object.hasOwn(value, k) && Buffer.isBuffer((value as Packet)[k])) (keys ??= []).push(k);
	return keys && { section: section!, keys };
}

/**
 * Moleculer's JSON serializer, but a packet whose params or data hold Buffers is a frame: FRAME,
 * the JSON's length (4 bytes), the JSON (each Buffer null in it, `$bytes` naming them and their
 * lengths), then the Buffers' bytes. A received frame's Buffers are views of it, not copies.
 */
export class FramedJSON extends Serializers.JSON {
	override serialize(packet: Packet, type?: string): Buffer {
		const found = type ? buffersOf(packet, type) : undefined;
		if (!found) return super.serialize(packet);
		const value = packet[found.section] as Packet;
		const buffers = found.keys.map((k) => value[k] as Buffer);
		const json = JSON.stringify({
			...packet,
			[found.section]: { ...value, ...Object.fromEntries(found.keys.map((k) => [k, null])) },
			$bytes: found.keys.map((k, i) => [k, buffers[i].length]),
		});
		const jsonBytes = Buffer.byteLength(json);
		const frame = Buffer.allocUnsafe(5 + jsonBytes + buffers.reduce((sum, b) => sum + b.length, 0));
		frame[0] = FRAME;
		frame.writeUInt32BE(jsonBytes, 1);
		frame.write(json, 5);
		let at = 5 + jsonBytes;
		for (const b of buffers) at += b.copy(frame, at);
		return frame;
	}

	override deserialize(buf: Buffer | string, type?: string): Packet {
		if (typeof buf === "string" || buf[0] !== FRAME) return super.deserialize(buf) as Packet;
		const jsonBytes = buf.readUInt32BE(1);
		const packet = JSON.parse(buf.toString("utf8", 5, 5 + jsonBytes)) as Packet & { $bytes?: Array<[string, number]> };
		const section = bytesSection(type ?? "");
		const value = section && (packet[section] as Packet | undefined);
		if (!value || !Array.isArray(packet.$bytes)) throw new Error("invalid bus frame");
		let at = 5 + jsonBytes;
		for (const [key, length] of packet.$bytes) {
			if (at + length > buf.length) throw new Error("invalid bus frame");
			value[key] = buf.subarray(at, at + length);
			at += length;
		}
		delete packet.$bytes;
		return packet;
	}
}

/** The middleware: a request or response for a node that does not read frames carries its Buffers in base64. */
export function bytesForOlderNodes(): Middleware {
	let broker: ServiceBroker | undefined;
	const readsFrames = (nodeID: unknown) => typeof nodeID === "string" && broker?.registry.nodes.get(nodeID)?.metadata?.busFrames === READS_FRAMES.busFrames;
	const middleware = {
		name: "BusBytes",
		created(b: ServiceBroker) {
			broker = b;
		},
		transitPublish(next: (packet: { type: string; target: unknown; payload: Packet }) => Promise<unknown>) {
			return (packet: { type: string; target: unknown; payload: Packet }) => {
				const found = buffersOf(packet.payload, packet.type);
				if (!found || readsFrames(packet.target)) return next(packet);
				// The payload holds the caller's own params: copies are changed, not it.
				const value = packet.payload[found.section] as Packet;
				const encoded = Object.fromEntries(found.keys.map((k) => [k, (value[k] as Buffer).toString("base64")]));
				packet.payload = { ...packet.payload, [found.section]: { ...value, ...encoded } };
				return next(packet);
			};
		},
	};
	return middleware as unknown as Middleware;
}
