// Draining (SIGTERM): the listener is closed, requests that arrive on open connections are refused
// with 503, and the node stops once the requests in flight are answered (or a timeout passes).
import type { Server, ServerResponse } from "node:http";
import { apiError, renderError } from "../../shared/errors";
import { send } from "./responses";

export class Drain {
	private draining = false;
	private inFlight = 0;
	private idle: (() => void) | undefined;

	/** Runs one request's handling, counted among those a drain waits for; refused once draining. */
	async track(res: ServerResponse, handle: () => Promise<unknown>): Promise<void> {
		if (this.draining) return refuse(res);
		this.inFlight++;
		try {
			await handle();
		} finally {
			if (--this.inFlight === 0) this.idle?.();
		}
	}

	/** Stops taking connections and requests, and waits up to `timeoutMs` for those in flight. */
	async start(server: Server | undefined, timeoutMs: number, log: (msg: string) => void): Promise<void> {
		this.draining = true;
		server?.close();
		server?.closeIdleConnections();
		if (this.inFlight > 0) {
			log(`Draining: waiting for ${this.inFlight} request(s) in flight`);
			await new Promise<void>((resolve) => {
				const timer = setTimeout(resolve, timeoutMs);
				this.idle = () => {
					clearTimeout(timer);
					resolve();
				};
			});
		}
		server?.closeIdleConnections();
	}
}

/** 503 with Retry-After and Connection: close, before any work is done. */
function refuse(res: ServerResponse): void {
	const r = renderError(apiError(503, "SERVICE_UNAVAILABLE", "Server shutting down"));
	send(res, 503, r.body, { "Retry-After": 1, Connection: "close" });
}
