// The gateway's HTTP server, with the answers Node's own parser and the body size give before any
// route runs. Every refusal is Zulip's JSON error envelope, and the connection is never dropped
// without an answer:
// - a request line or headers over `maxHeaderSize` is 431 (Node's parser cannot tell a long URL
//   from long headers; both count against the same limit), any other unparsable request 400, a
//   request whose headers do not arrive in time 408;
// - a `Content-Length` over the body limit is 413 at once, without waiting for a body that may
//   never come.
// After such an answer the rest of what the client sends is read and dropped for a moment before
// the connection closes, so the client reads the answer instead of a reset.
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";

/** Node's default, stated: the whole request line and headers, in bytes. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** How long a refused connection keeps reading (and dropping) what the client still sends. */
const DRAIN_MS = 2_000;

const REASONS: Record<number, string> = { 400: "Bad Request", 408: "Request Timeout", 413: "Payload Too Large", 431: "Request Header Fields Too Large" };

function envelope(msg: string): string {
	return JSON.stringify({ result: "error", msg, code: "BAD_REQUEST" });
}

/** Answers and closes `socket` by hand (no response object exists), then drains it briefly. */
function refuseSocket(socket: Duplex, status: number, msg: string): void {
	const body = envelope(msg);
	socket.removeAllListeners("data");
	socket.on("data", () => undefined);
	socket.on("error", () => undefined);
	socket.resume();
	socket.end(
		`HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
	);
	setTimeout(() => socket.destroy(), DRAIN_MS).unref();
}

const answered = new WeakSet<Duplex>();

function onClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
	// The parser reports again for every further chunk: answer once.
	if (answered.has(socket)) return;
	answered.add(socket);
	const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
	if (!socket.writable || inFlight?.headersSent || err.code === "ECONNRESET") {
		socket.destroy();
		return;
	}
	if (err.code === "HPE_HEADER_OVERFLOW") refuseSocket(socket, 431, "Request line or headers too large");
	else if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") refuseSocket(socket, 408, "Request timed out");
	else refuseSocket(socket, 400, "Malformed HTTP request");
}

/**
 * After an answer given before the body was read: the rest of the body is read and dropped for a
 * moment, then the connection closes (the client reads the answer instead of a reset).
 */
export function dropRestOfBody(req: IncomingMessage): void {
	req.unpipe();
	req.resume();
	// A body read to its end in that time leaves a connection fit for the client's next request
	// (a keep-alive client may already be sending it): only one still sending is cut off.
	setTimeout(() => {
		if (!req.complete) req.socket.destroy();
	}, DRAIN_MS).unref();
}

/**
 * The server moleculer-web runs on: `handler` is its request handler; `bodyLimit` the largest
 * body a request may announce (file endpoints check their own limit as they read).
 */
export function createHttpServer(bodyLimit: (req: IncomingMessage) => number, handler: (req: IncomingMessage, res: ServerResponse) => void): http.Server {
	const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
		const announced = Number(req.headers["content-length"]);
		if (Number.isFinite(announced) && announced > bodyLimit(req)) {
			const body = envelope("Request body too large");
			res.writeHead(413, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), Connection: "close" });
			res.end(body);
			dropRestOfBody(req);
			return;
		}
		handler(req, res);
	});
	server.on("clientError", onClientError);
	return server;
}
