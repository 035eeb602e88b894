// One POST to a bot's server, bounded: a total timeout, a response size limit, no redirects
// followed (a 3xx is the answer, so a redirect cannot lead past the network guard), and the
// connection made to the address the guard checked.
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { ZULIP_VERSION } from "../../../shared/version";
import { RefusedAddress, type NetworkGuard } from "./network-guard";

export interface HttpLimits {
	timeoutMs: number;
	maxResponseBytes: number;
	guard: NetworkGuard;
}


export type CallOutcome =
	| { kind: "response"; status: number; body: Buffer }
	| { kind: "timeout" }
	| { kind: "connection"; error: Error }
	| { kind: "refused"; error: RefusedAddress }
	| { kind: "error"; error: Error };

/** The answer was larger than the limit: an exception of the call, as Zulip's RequestException. */
export class ResponseTooLarge extends Error {
	constructor(limit: number) {
		super(`The response is larger than ${limit} bytes.`);
		this.name = "ResponseTooLarge";
	}
}

export function post(url: string, body: { contentType: string; data: string }, o: HttpLimits): Promise<CallOutcome> {
	let target: URL;
	try {
		target = new URL(url);
		if (target.protocol !== "http:" && target.protocol !== "https:") throw new TypeError(`Unsupported protocol ${target.protocol}`);
	} catch (err) {
		return Promise.resolve({ kind: "error", error: err as Error });
	}
	// An IP literal is connected to without a lookup: it is checked here.
	const literal = target.hostname.replace(/^\[|\]$/g, "");
	if (isIP(literal) && !o.guard.allows(literal)) return Promise.resolve({ kind: "refused", error: new RefusedAddress(literal) });

	return new Promise((resolve) => {
		let settled = false;
		const done = (outcome: CallOutcome) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			resolve(outcome);
		};
		const client = target.protocol === "https:" ? https : http;
		const req = client.request(
			target,
			{
				method: "POST",
				lookup: o.guard.lookup,
				agent: false,
				headers: { "Content-Type": body.contentType, "Content-Length": Buffer.byteLength(body.data), "User-Agent": `ZulipOutgoingWebhook/${ZULIP_VERSION}` },
			},
			(res) => {
				const chunks: Buffer[] = [];
				let size = 0;
				res.on("data", (chunk: Buffer) => {
					size += chunk.length;
					if (size > o.maxResponseBytes) {
						done({ kind: "error", error: new ResponseTooLarge(o.maxResponseBytes) });
						req.destroy();
						return;
					}
					chunks.push(chunk);
				});
				res.on("end", () => done({ kind: "response", status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
				res.on("error", (error) => done({ kind: "connection", error }));
			},
		);
		const timer = setTimeout(() => {
			done({ kind: "timeout" });
			req.destroy();
		}, o.timeoutMs);
		// Every other failure of the transport (refused, reset, DNS, TLS, a malformed answer) is
		// what requests raises as a ConnectionError, which Zulip's worker retries.
		req.on("error", (error: NodeJS.ErrnoException) => {
			if (error instanceof RefusedAddress) done({ kind: "refused", error });
			else if (error.code === "ETIMEDOUT") done({ kind: "timeout" });
			else done({ kind: "connection", error });
		});
		req.end(body.data);
	});
}
