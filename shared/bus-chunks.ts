// Packets larger than one NATS message (nats-server's max_payload, 1 MB by default) cross the bus
// in chunks: a GET /messages answer of 5,000 long messages, a request carrying a 5 MB body, a
// broadcast to a very large channel. A Moleculer middleware at the transporter: a serialized
// packet over CHUNK_BYTES is sent as numbered chunks on the same subject, and the receiver puts
// them together before Moleculer sees the packet. No nats-server setting is needed.
//
// Chunks of one packet must reach one receiver: they do on the node-addressed subjects Moleculer
// uses with its own balancer (this project's setting). On the queue-group subjects of
// `disableBalancer` they could be split between replicas, so a balanced packet is never chunked.
import { randomBytes } from "node:crypto";
import type { Middleware, ServiceBroker } from "moleculer";

/** A chunk starts with this byte; a serialized packet (JSON) never does. */
const MARK = 0x00;
/** Largest packet sent whole, and the size of each chunk; under NATS's default max_payload with room for the header. */
export const CHUNK_BYTES = 512 * 1024;
/** A packet whose chunks stop coming (its sender died) is dropped after this long. */
const INCOMPLETE_TTL_MS = 60_000;

type Send = (topic: string, data: Buffer, meta: { balanced?: boolean }) => Promise<unknown>;
type Receive = (cmd: string, data: Buffer, ...rest: unknown[]) => unknown;

interface Header {
	id: string;
	seq: number;
	total: number;
}

/** The chunks of one packet: MARK, the header's length (2 bytes), the header (JSON), the bytes. */
export function splitPacket(data: Buffer, id: string, size = CHUNK_BYTES): Buffer[] {
	const total = Math.ceil(data.length / size);
	return Array.from({ length: total }, (_, seq) => {
		const header = Buffer.from(JSON.stringify({ id, seq, total } satisfies Header));
		const head = Buffer.alloc(3);
		head[0] = MARK;
		head.writeUInt16BE(header.length, 1);
		return Buffer.concat([head, header, data.subarray(seq * size, (seq + 1) * size)]);
	});
}

/** Collects chunks; answers the whole packet when its last chunk arrives, else undefined. */
export class Reassembler {
	private readonly pending = new Map<string, { parts: Buffer[]; received: number; timer: NodeJS.Timeout }>();

	constructor(private readonly ttlMs = INCOMPLETE_TTL_MS) {}

	static isChunk(data: Buffer): boolean {
		return data.length > 3 && data[0] === MARK;
	}

	add(chunk: Buffer): Buffer | undefined {
		const length = chunk.readUInt16BE(1);
		const { id, seq, total } = JSON.parse(chunk.subarray(3, 3 + length).toString()) as Header;
		let entry = this.pending.get(id);
		if (!entry) {
			const timer = setTimeout(() => this.pending.delete(id), this.ttlMs);
			timer.unref();
			entry = { parts: new Array<Buffer>(total), received: 0, timer };
			this.pending.set(id, entry);
		}
		if (!entry.parts[seq]) {
			entry.parts[seq] = chunk.subarray(3 + length);
			entry.received++;
		}
		if (entry.received < total) return undefined;
		clearTimeout(entry.timer);
		this.pending.delete(id);
		return Buffer.concat(entry.parts);
	}

	get size(): number {
		return this.pending.size;
	}
}

/** The middleware: chunks outgoing packets over CHUNK_BYTES, puts incoming chunks together. */
export function busChunks(chunkBytes = CHUNK_BYTES): Middleware {
	const prefix = randomBytes(6).toString("hex");
	let counter = 0;
	const incoming = new Reassembler();
	let logger: ReturnType<ServiceBroker["getLogger"]> | undefined;
	const middleware = {
		name: "BusChunks",
		created(broker: ServiceBroker) {
			logger = broker.getLogger("bus-chunks");
		},
		transporterSend(next: Send): Send {
			return (topic, data, meta) => {
				if (data.length <= chunkBytes || meta?.balanced) return next(topic, data, meta);
				const chunks = splitPacket(data, `${prefix}${(counter++).toString(36)}`, chunkBytes);
				logger?.debug(`${data.length} bytes to ${topic} in ${chunks.length} chunks`);
				// One after another: NATS keeps one publisher's order on a subject, and the receiver reorders anyway.
				return chunks.reduce<Promise<unknown>>((sent, chunk) => sent.then(() => next(topic, chunk, meta)), Promise.resolve());
			};
		},
		transporterReceive(next: Receive): Receive {
			return (cmd, data, ...rest) => {
				if (!Buffer.isBuffer(data) || !Reassembler.isChunk(data)) return next(cmd, data, ...rest);
				let whole: Buffer | undefined;
				try {
					whole = incoming.add(data);
				} catch (err) {
					logger?.warn({ err }, "invalid chunk dropped");
					return undefined;
				}
				return whole ? next(cmd, whole, ...rest) : undefined;
			};
		},
	};
	return middleware as unknown as Middleware;
}
