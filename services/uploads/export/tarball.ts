// An export's .tar.gz, written straight into GridFS as it is made: files go into a tar stream
// (tar-stream), through gzip, and the compressed bytes are stored a GridFS chunk at a time. The
// tar bytes are handed to gzip only as fast as it takes them (each write waits for its drain, which
// comes once the compressed bytes are stored), and adding a file waits while more than
// MAX_BUFFERED bytes of the archive have not been taken, so a slow store holds the export back
// instead of letting it pile up in memory: a node holds about the file being added, MAX_BUFFERED
// and a chunk or two. Its SHA-256 is computed on the way.
import { createHash } from "node:crypto";
import { once } from "node:events";
import { createGzip } from "node:zlib";
import { pack as tarPack } from "tar-stream";
import { CHUNK_BYTES, type FileId, type FileStore } from "../file-store";

/** The most archive bytes added but not yet taken by gzip before adding waits. */
const MAX_BUFFERED = 4 * 1024 * 1024;
/** A tar entry's header, and the block its data is padded to. */
const TAR_BLOCK = 512;

export class TarballWriter {
	private readonly pack = tarPack();
	private readonly gzip = createGzip();
	private readonly hash = createHash("sha256");
	private readonly stop = new AbortController();
	private chunks = 0;
	private length = 0;
	/** Archive bytes added, and those gzip has taken. */
	private added = 0;
	private taken = 0;
	private failure: unknown;
	private waiting: Array<() => void> = [];
	private readonly fed: Promise<void>;
	private readonly stored: Promise<void>;

	constructor(
		/** Where the compressed bytes go, a chunk at a time: GridFS, or a file (the management CLI). */
		private readonly store: Pick<FileStore, "writeChunk" | "remove">,
		readonly fileId: FileId,
		/** The entries' modification time. */
		private readonly mtime: Date,
	) {
		this.fed = this.feed();
		this.stored = this.storeAll();
		// A failure of either is thrown by the next add(), and by finish().
		for (const p of [this.fed, this.stored])
			p.catch((err: unknown) => {
				this.failure ??= err ?? new Error("writing the export failed");
				this.stop.abort();
				this.wake();
			});
	}

	private wake(): void {
		for (const resume of this.waiting.splice(0)) resume();
	}

	/** Hands the tar bytes to gzip as fast as it takes them. */
	private async feed(): Promise<void> {
		for await (const part of this.pack) {
			const bytes = part as Buffer;
			if (!this.gzip.write(bytes)) await once(this.gzip, "drain", { signal: this.stop.signal });
			this.taken += bytes.length;
			this.wake();
		}
		this.gzip.end();
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

	/** Adds a file to the archive; waits while too much of the archive is not yet taken by gzip. */
	async add(name: string, data: Buffer): Promise<void> {
		if (this.failure) throw this.failure;
		await new Promise<void>((resolve, reject) => {
			this.pack.entry({ name, size: data.length, mtime: this.mtime, mode: 0o644 }, data, (err) => (err ? reject(err) : resolve()));
		}).catch((err: unknown) => {
			// A tar stream stopped by a failure downstream: that failure is the cause.
			throw this.failure ?? err;
		});
		this.added += TAR_BLOCK + Math.ceil(data.length / TAR_BLOCK) * TAR_BLOCK;
		while (this.added - this.taken > MAX_BUFFERED && !this.failure) await new Promise<void>((resume) => this.waiting.push(resume));
		if (this.failure) throw this.failure;
	}

	/** Ends the archive once every byte is stored: its length and SHA-256 (hex). */
	async finish(): Promise<{ length: number; sha256: string }> {
		if (this.failure) throw this.failure;
		this.pack.finalize();
		await Promise.all([this.fed, this.stored]);
		return { length: this.length, sha256: this.hash.digest("hex") };
	}

	/** Stops writing and removes whatever was stored. */
	async abort(): Promise<void> {
		this.stop.abort();
		this.pack.destroy();
		this.gzip.destroy();
		await Promise.allSettled([this.fed, this.stored]);
		await this.store.remove(this.fileId);
	}
}
