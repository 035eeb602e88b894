// Receiving a file from a multipart/form-data body without holding it: busboy parses the body as
// it arrives, and the file's bytes leave in chunks of the store's chunk size, one awaited call at
// a time (`write`), so an upload of any size holds about one chunk in this process and the socket
// is read no faster than the store takes the bytes. The endpoint's own checks ran before the
// body is read (`uploads.begin`); what is refused later (too large) removes what was stored.
import type { IncomingMessage } from "node:http";
import busboy from "busboy";
import { apiError, badRequest } from "../../shared/errors";

export interface ReceivedFile {
	file_name: string;
	content_type: string;
	length: number;
	/** Text fields of the body, which no file endpoint reads (reported as ignored). */
	fields: string[];
}

/** Where the bytes go: chunk `n` of the upload, each `chunkBytes` long but the last. */
export interface ChunkSink {
	chunkBytes: number;
	write(n: number, data: Buffer): Promise<void>;
}

const LIMITS = { files: 2, fields: 100, fieldSize: 64 * 1024, parts: 200, headerPairs: 100 };

/** Reads the one file of `req`'s multipart body into `sink`; refuses a body without exactly one file, as Zulip. */
export function receiveFile(req: IncomingMessage, sink: ChunkSink): Promise<ReceivedFile> {
	return new Promise<ReceivedFile>((resolve, reject) => {
		let parser: busboy.Busboy;
		try {
			parser = busboy({ headers: req.headers, limits: LIMITS, defParamCharset: "utf8" });
		} catch {
			reject(badRequest("You must specify a file to upload"));
			return;
		}
		const fields: string[] = [];
		let file: Promise<Omit<ReceivedFile, "fields">> | undefined;
		let failed = false;
		let fileStream: NodeJS.ReadableStream & { destroy(): void } | undefined;
		/** Stops reading; refuses once the file's last write has settled, so nothing lands after the caller cleans up. */
		const fail = (err: unknown) => {
			if (failed) return;
			failed = true;
			req.unpipe(parser);
			// The file's bytes stop coming: its pump ends (a write in flight settles first).
			fileStream?.destroy();
			void (file ?? Promise.resolve()).catch(() => undefined).then(() => reject(err));
		};
		const guarded: ChunkSink = {
			chunkBytes: sink.chunkBytes,
			write: (n, data) => (failed ? Promise.reject(new Error("upload refused")) : sink.write(n, data)),
		};

		parser.on("field", (name) => fields.push(name));
		parser.on("file", (_name, stream, info) => {
			// A part whose file name is empty (busboy empties "." and "..", keeping a path's last
			// segment) is no file, as Django's MultiPartParser drops it: the body then has none.
			if (!info.filename) {
				stream.resume();
				return;
			}
			if (file) {
				stream.resume();
				fail(badRequest("You may only upload one file at a time"));
				return;
			}
			fileStream = stream;
			file = pump(stream, guarded).then((length) => ({ file_name: info.filename ?? "", content_type: partType(info.mimeType), length }));
			file.catch((err: unknown) => {
				stream.resume();
				fail(err);
			});
		});
		parser.on("filesLimit", () => fail(badRequest("You may only upload one file at a time")));
		parser.on("error", () => fail(badRequest("Malformed multipart/form-data body")));
		parser.on("close", () => {
			if (failed) return;
			if (!file) return fail(badRequest("You must specify a file to upload"));
			file.then((f) => resolve({ ...f, fields }), fail);
		});
		// A client that goes away mid-body: busboy never closes, so the upload is failed here.
		req.on("close", () => {
			if (!req.complete) fail(apiError(400, "BAD_REQUEST", "Upload interrupted"));
		});
		req.pipe(parser);
	});
}

/**
 * The type a file part declared. busboy reports "text/plain" (RFC 7578's default) for a part
 * without a Content-Type, which is how the Python zulip package's upload_file sends every file:
 * taken as none, so the file's name decides (contentTypeOf), as Zulip guesses a type Django read
 * as "". A browser's text/plain file has a name that says so.
 */
function partType(mimeType: string | undefined): string {
	return !mimeType || mimeType === "text/plain" ? "" : mimeType;
}

/** Cuts the stream into the sink's chunks; answers the number of bytes. */
async function pump(stream: NodeJS.ReadableStream, sink: ChunkSink): Promise<number> {
	let chunk = Buffer.allocUnsafe(sink.chunkBytes);
	let filled = 0;
	let n = 0;
	let length = 0;
	for await (const piece of stream as AsyncIterable<Buffer>) {
		length += piece.length;
		let at = 0;
		while (at < piece.length) {
			const take = Math.min(piece.length - at, sink.chunkBytes - filled);
			piece.copy(chunk, filled, at, at + take);
			filled += take;
			at += take;
			if (filled === sink.chunkBytes) {
				await sink.write(n++, chunk);
				chunk = Buffer.allocUnsafe(sink.chunkBytes);
				filled = 0;
			}
		}
	}
	if (filled > 0) await sink.write(n, chunk.subarray(0, filled));
	return length;
}
