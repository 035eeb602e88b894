// Bytes in a bus call's parameters or result (a file's chunks, services/api/file-routes.ts and
// services/uploads/actions/transfer.ts): the Buffer itself between two services of one process,
// base64 between two processes.
//
// Decision: Moleculer hands a call within one process its params and result by reference, so
// there a Buffer costs nothing, while base64 would cost a string a third larger than the chunk
// and a decoded copy, garbage that made the resident set grow by tens of MiB during an upload.
// Across the network the JSON serializer (moleculer.config.ts) carries text only: base64. Which
// form a call takes is decided where it is known for sure: a caller that sends a Buffer pins
// the call to its own node (`localCall`), and a service answers a Buffer only to a caller of its
// own node (`replyBytes`). The receiving side takes either (`fromBus`).
import type { CallingOptions, Context, ServiceBroker } from "moleculer";
import { badRequest } from "./errors";

export type BusBytes = string | Buffer;

/**
 * How to call `service` with bytes: when it runs in this process, the call pinned to this node
 * (so it cannot go to another replica, where a Buffer would not survive the JSON serializer) and
 * the bytes sent as they are; otherwise as any call, in base64.
 */
export function bytesCall(broker: ServiceBroker, service: string): { opts: CallingOptions; encode: (data: Buffer) => BusBytes } {
	if (broker.getLocalService(service)) return { opts: { nodeID: broker.nodeID }, encode: (data) => data };
	return { opts: {}, encode: (data) => data.toString("base64") };
}

/** Bytes to answer the call `ctx`: the Buffer to a caller in this process, base64 to another. */
export function replyBytes(ctx: Context, data: Buffer): BusBytes {
	return ctx.nodeID === ctx.broker.nodeID ? data : data.toString("base64");
}

/** The bytes a call carried, in either form; anything else is refused. */
export function fromBus(data: unknown): Buffer {
	if (Buffer.isBuffer(data)) return data;
	if (typeof data === "string") return Buffer.from(data, "base64");
	throw badRequest("Invalid chunk");
}
