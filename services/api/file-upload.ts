// Receiving a file from a multipart/form-data body without holding it: busboy parses the body as
// it arrives, and the file's bytes leave in chunks of the store's chunk size, one awaited call at
// a time (`write`), so an upload of any size holds about one chunk in this process and the socket
// is read no faster than the store takes the bytes. The endpoint's own checks ran before the
// body is read (`uploads.begin`); what is refused later (too large) removes what was stored.
import type { IncomingMessage } from "node:http";
import busboy from "busboy";
import { apiError, badRequest } from "../../shared/errors";
import { transferred } from "../../shared/transfer-garbage";

export interface ReceivedFile {
	file_name: string;
	content_type: string;
	length: number;
	/** Text fields of the body, which no file endpoint reads (reported as ignored). */
	fields: string[];
}

/**
 * What the body of an endpoint whose file is optional holds (a route's `file: "optional"`): the
 * file if one came, the text fields before it as parameters, and the names of those after it
 * (ignored, as on a file endpoint).
 */
export interface ReceivedParts {
	file: Omit<ReceivedFile, "fields"> | null;
	params: Record<string, string>;
	ignored: string[];
}

/** Where the bytes go: chunk `n` of the upload, each `chunkBytes` long but the last. */
export interface ChunkSink {
	chunkBytes: number;
	write(n: number, data: Buffer): Promise<void>;
}

const LIMITS = { files: 2, fields: 100, fieldSize: 64 * 1024, parts: 200, headerPairs: 100 };

/** Reads the one file of `req`'s multipart body into `sink`; refuses a body without exactly one file, as Zulip. */
export async function receiveFile(req: IncomingMessage, sink: ChunkSink): Promise<ReceivedFile> {
	const got = await receiveParts(req, async () => sink, false);
	return { ...got.file!, fields: got.ignored };
}

/**
 * Reads `req`'s multipart body: its one file into the sink `openSink` answers when the file's part
 * begins, given the text fields read so far (so the endpoint may check them before any byte is
 * stored). With `optional`, a body without a file is no error, and the text fields before the file
 * are the parameters. Decision: fields after the file are ignored, as every field of a file
 * endpoint is, so what is checked before the bytes are stored is all the action is given.
 */
export function receiveParts(req: IncomingMessage, openSink: (params: Record<string, string>) => Promise<ChunkSink>, optional: boolean): Promise<ReceivedParts> {
	return new Promise<ReceivedParts>((resolve, reject) => {
		let parser: busboy.Busboy;
		try {
			parser = busboy({ headers: req.headers, limits: LIMITS, defParamCharset: "utf8" });
		} catch {
			reject(badRequest("You must specify a file to upload"));
			return;
		}
		const fields: string[] = [];
		// No prototype: a field named "__proto__" is a parameter like any other.
		const params: Record<string, string> = Object.create(null);
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
		const guarded = (sink: ChunkSink): ChunkSink => ({
			chunkBytes: sink.chunkBytes,
			write: (n, data) => (failed ? Promise.reject(new Error("upload refused")) : sink.write(n, data)),
		});

		parser.on("field", (name, value, info) => {
			if (!optional || file) fields.push(name);
			// A parameter cut at the field size limit (64 KiB, far past any text parameter's own) is refused, not taken cut.
			else if (info.valueTruncated) fail(badRequest(`Invalid ${name}`));
			else params[name] = value;
		});
		parser.on("file", (_name, stream, info) => {
			// A part busboy had parsed before the body was refused: nothing more is taken (an
			// optional file's upload would otherwise begin after the refusal, left behind).
			if (failed) {
				stream.resume();
				return;
			}
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
			// Until the sink is open nothing reads the part: a body cut short meanwhile errs the part
			// with no reader, which pump's reading then reports (and the request's close fails the upload).
			stream.on("error", () => undefined);
			file = openSink({ ...params })
				.then((sink) => pump(stream, guarded(sink)))
				.then((length) => ({ file_name: info.filename ?? "", content_type: partType(info.mimeType), length }));
			file.catch((err: unknown) => {
				stream.resume();
				fail(err);
			});
		});
		parser.on("filesLimit", () => fail(badRequest("You may only upload one file at a time")));
		parser.on("error", () => fail(badRequest("Malformed multipart/form-data body")));
		parser.on("close", () => {
			if (failed) return;
			if (!file) {
				if (optional) resolve({ file: null, params, ignored: fields });
				else fail(badRequest("You must specify a file to upload"));
				return;
			}
			file.then((f) => resolve({ file: f, params, ignored: fields }), fail);
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

/**
 * Cuts the stream into the sink's chunks; answers the number of bytes. One buffer serves every
 * chunk: a write has settled before the next chunk is filled, and nothing holds its bytes then (a
 * call within the process stored them, one across the network sent a copy), so an upload leaves
 * no chunk-sized garbage behind in this process but what the bus and the socket make.
 */
async function pump(stream: NodeJS.ReadableStream, sink: ChunkSink): Promise<number> {
	const chunk = Buffer.allocUnsafe(sink.chunkBytes);
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
				transferred(filled);
				filled = 0;
			}
		}
	}
	if (filled > 0) await sink.write(n, chunk.subarray(0, filled));
	return length;
}
