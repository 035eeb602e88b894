// Resumable uploads at /api/v1/tus: the tus 1.0.0 protocol (creation with Upload-Length and
// Upload-Metadata `filename`/`filetype`, PATCH at Upload-Offset, HEAD to resume, DELETE), as Zulip
// offers it since feature level 295; a finished upload is an ordinary message upload, and the
// request that finishes it is answered with Zulip's `{"url": ..., "filename": ...}`.
//
// Decision: the protocol is spoken here, in the gateway (the only HTTP surface), by @tus/server;
// its data store (tus-store.ts) is a thin client of the uploads service, which owns the upload's
// state and bytes (services/uploads/tus/tus-rules.ts) and never sees HTTP. Zulip runs tusd beside
// Django and answers its hooks; here the hooks' checks (size limit, quota, the file's name and
// path, the attachment) are the uploads service's actions. No upload state is kept in a gateway:
// @tus/server's in-memory lock only orders one replica's own requests for an upload, and what
// keeps two replicas from writing the same bytes is the store's conditional write at the offset.
import type { IncomingMessage, ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import type { Logger } from "moleculer";
import { Server } from "@tus/server";
import { ERRORS } from "@tus/utils";
import { apiError, renderError } from "../../shared/errors";
import { BusDataStore, callAsRequester, tusScope, type TusScope } from "./tus-store";

export const TUS_PATH = "/api/v1/tus";
/** Sent with every answer but OPTIONS' (tus 1.0.0), ours included. */
export const TUS_HEADERS = { "Tus-Resumable": "1.0.0" };

/** Whether a request's path (its query cut off) is the tus endpoint's. */
export const isTusPath = (pathname: string) => pathname === TUS_PATH || pathname.startsWith(`${TUS_PATH}/`);

/** Zulip's answer to a deferred length (its pre-create hook): the upload's size must be known. */
const sizeDeferred = () => apiError(411, "BAD_REQUEST", "SizeIsDeferred is not supported");

/**
 * An error as this endpoint answers it: Zulip's error envelope, whose `msg` is also under
 * `message`, the field Zulip's tusd hooks answer with. @tus/server's own refusals (a bad offset,
 * an unknown upload) keep their status with their words as `msg`.
 */
function errorAnswer(err: unknown, logger: Logger): { status_code: number; body: string } {
	const tus = err as { status_code?: unknown; body?: unknown };
	let rendered = renderError(err);
	if (tus === ERRORS.UNSUPPORTED_CREATION_DEFER_LENGTH_EXTENSION) rendered = renderError(sizeDeferred());
	else if (typeof tus.status_code === "number" && typeof tus.body === "string" && tus.status_code < 500) {
		rendered = renderError(apiError(tus.status_code, tus.status_code === 404 ? "NOT_FOUND" : "BAD_REQUEST", tus.body.trim()));
	}
	if (rendered.status >= 500) logger[rendered.status === 503 ? "warn" : "error"]({ err }, "tus request failed");
	return { status_code: rendered.status, body: JSON.stringify({ ...rendered.body, message: rendered.body.msg }) };
}

/** The gateway's tus server: `handle` answers one request as the user of `scope` (the gateway authenticated it). */
export function tusEndpoint(logger: Logger) {
	/** The requests whose error answer errorAnswer wrote (JSON), as opposed to @tus/server's plain-text ones. */
	const jsonAnswers = new WeakSet<TusScope>();
	const server = new Server({
		path: TUS_PATH,
		datastore: new BusDataStore(),
		// The client resolves it against the URL it created the upload at, behind any proxy.
		relativeLocation: true,
		// The ID of the GridFS file the upload becomes (24 hex digits), chosen here, checked there.
		namingFunction: () => randomBytes(12).toString("hex"),
		// Zulip's pre-terminate hook: a finished upload is an attachment, managed as one.
		disableTerminationForFinishedUploads: true,
		async onUploadFinish(req, upload) {
			const finished = await callAsRequester("uploads.tusFinish", { upload_id: upload.id });
			// A creation that carried the whole file stays a 201 (its Location must be sent).
			return { status_code: req.method === "POST" ? 201 : 200, headers: { "Content-Type": "application/json" }, body: JSON.stringify(finished) };
		},
		onResponseError(_req, err) {
			const scope = tusScope.getStore();
			if (scope) jsonAnswers.add(scope);
			return errorAnswer(err, logger);
		},
	});

	return {
		handle(req: IncomingMessage, res: ServerResponse, scope: TusScope): Promise<void> {
			// @tus/server builds its answer as a web Response, typed text/plain: an error answer of ours is JSON.
			const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
			(res as { writeHead: unknown }).writeHead = (status: number, ...rest: unknown[]) => {
				const headers = rest[rest.length - 1];
				if (status >= 400 && jsonAnswers.has(scope) && Array.isArray(headers)) {
					const i = headers.findIndex((h, j) => j % 2 === 0 && String(h).toLowerCase() === "content-type");
					if (i >= 0) headers[i + 1] = "application/json";
				}
				return writeHead(status, ...rest);
			};
			// The answer to a client gone mid-request never ends (its `end` callback never comes): the
			// request is over when its connection is.
			const closed = new Promise<void>((resolve) => res.once("close", resolve));
			return Promise.race([tusScope.run(scope, () => server.handle(req, res)), closed]);
		},
	};
}
