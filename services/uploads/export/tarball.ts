// An export's .tar.gz, written straight into GridFS as it is made: files go into a tar stream
// (tar-stream), through gzip, and the compressed bytes are stored a GridFS chunk at a time, so no
// node holds more than a file being added and a chunk or two. Its SHA-256 is computed on the way.
import { createHash } from "node:crypto";
import { createGzip } from "node:zlib";
import { pack as tarPack } from "tar-stream";
import { CHUNK_BYTES, type FileId, type FileStore } from "../file-store";

export class TarballWriter {
	private readonly pack = tarPack();
	private readonly gzip = createGzip();
	private readonly hash = createHash("sha256");
	private chunks = 0;
	private length = 0;
	private readonly stored: Promise<void>;

	constructor(
		private readonly store: FileStore,
		readonly fileId: FileId,
		/** The entries' modification time. */
		private readonly mtime: Date,
	) {
		this.pack.pipe(this.gzip);
		this.stored = this.storeAll();
		// Its failure is awaited (and thrown) by finish() or abort().
		this.stored.catch(() => undefined);
	}

	/** Reads the compressed bytes as they come and stores them in chunks of CHUNK_BYTES. */
	private async storeAll(): Promise<void> {
		let pending: Buffer = Buffer.alloc(0);
		for await (const part of this.gzip) {
			const bytes = part as Buffer;
			this.hash.update(bytes);
			this.length += bytes.length;
			pending = pending.length ? Buffer.concat([pending, bytes]) : bytes;
			while (pending.length >= CHUNK_BYTES) {
				await this.store.writeChunk(this.fileId, this.chunks++, pending.subarray(0, CHUNK_BYTES));
				pending = pending.subarray(CHUNK_BYTES);
			}
		}
		if (pending.length) await this.store.writeChunk(this.fileId, this.chunks++, pending);
	}

	/** Adds a file to the archive. */
	add(name: string, data: Buffer): Promise<void> {
		return new Promise((resolve, reject) => {
			this.pack.entry({ name, size: data.length, mtime: this.mtime, mode: 0o644 }, data, (err) => (err ? reject(err) : resolve()));
		});
	}

	/** Ends the archive once every byte is stored: its length and SHA-256 (hex). */
	async finish(): Promise<{ length: number; sha256: string }> {
		this.pack.finalize();
		await this.stored;
		return { length: this.length, sha256: this.hash.digest("hex") };
	}

	/** Stops writing and removes whatever was stored. */
	async abort(): Promise<void> {
		this.pack.destroy();
		this.gzip.destroy();
		await this.stored.catch(() => undefined);
		await this.store.remove(this.fileId);
	}
}
