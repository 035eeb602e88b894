// Sending a stored file: the headers a browser and a download tool need (type, disposition, length,
// byte ranges, caching, no sniffing) and the bytes read from the store one chunk at a time, each
// written only when the client has taken the one before, so a slow reader holds one chunk here.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { OpenedFile } from "../../shared/actions";
import { transferred } from "../../shared/transfer-garbage";

/** The one byte range a `Range` header asks for, null for the whole file, "unsatisfiable" past its end. */
export function byteRange(header: string | undefined, length: number): { start: number; end: number } | null | "unsatisfiable" {
	if (!header) return null;
	const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
	// Several ranges or another unit: served whole, as RFC 9110 allows.
	if (!m || (m[1] === "" && m[2] === "")) return null;
	let start: number;
	let end: number;
	if (m[1] === "") {
		const suffix = Number(m[2]);
		if (suffix === 0) return "unsatisfiable";
		start = Math.max(0, length - suffix);
		end = length - 1;
	} else {
		start = Number(m[1]);
		end = m[2] === "" ? length - 1 : Math.min(Number(m[2]), length - 1);
		if (m[2] !== "" && Number(m[2]) < start) return null;
	}
	if (start >= length || !Number.isSafeInteger(start)) return "unsatisfiable";
	return { start, end };
}

/** Writes `file` (or the range the request asks for) to `res`, reading chunks with `readChunk`. */
export async function sendFile(req: IncomingMessage, res: ServerResponse, file: OpenedFile, readChunk: (n: number) => Promise<Buffer>): Promise<void> {
	const etag = `"${file.file_id}"`;
	const headers: Record<string, string | number> = {
		"Content-Type": file.content_type,
		"Content-Disposition": file.disposition,
		"Accept-Ranges": "bytes",
		"Cache-Control": "private, immutable",
		ETag: etag,
		"Last-Modified": new Date(file.stored).toUTCString(),
		"X-Content-Type-Options": "nosniff",
		// An uploaded document shown in place runs nothing and loads nothing (Zulip's nginx does the same).
		"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; media-src 'self'; sandbox",
	};
	if (req.headers["if-none-match"] === etag) {
		res.writeHead(304, headers);
		res.end();
		return;
	}
	const range = byteRange(req.headers.range, file.length);
	if (range === "unsatisfiable") {
		res.writeHead(416, { ...headers, "Content-Range": `bytes */${file.length}`, "Content-Length": 0 });
		res.end();
		return;
	}
	const start = range?.start ?? 0;
	const end = range?.end ?? file.length - 1;
	res.writeHead(range ? 206 : 200, {
		...headers,
		"Content-Length": Math.max(0, end - start + 1),
		...(range ? { "Content-Range": `bytes ${start}-${end}/${file.length}` } : {}),
	});
	if (req.method === "HEAD" || file.length === 0) {
		res.end();
		return;
	}
	let closed = false;
	res.on("close", () => (closed = true));
	for (let n = Math.floor(start / file.chunk_bytes); n * file.chunk_bytes <= end && !closed; n++) {
		const chunk = await readChunk(n);
		const from = Math.max(0, start - n * file.chunk_bytes);
		const to = Math.min(chunk.length, end - n * file.chunk_bytes + 1);
		if (!res.write(chunk.subarray(from, to))) await new Promise<void>((resolve) => {
			const done = () => {
				res.off("drain", done);
				res.off("close", done);
				resolve();
			};
			res.on("drain", done);
			res.on("close", done);
		});
		transferred(to - from);
	}
	res.end();
}
