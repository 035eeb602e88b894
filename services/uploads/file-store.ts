// File bytes in MongoDB GridFS, in its standard layout: the bucket "files" (`files.files` holds
// one document per file, `files.chunks` its bytes in chunks of CHUNK_BYTES), so the driver's
// GridFSBucket, mongofiles and mongodump read them as any GridFS file, on MongoDB and on the
// embedded store alike.
//
// Decision: the bytes cross the bus one chunk per call (writeChunk, readChunk), each awaited,
// rather than as a Moleculer stream. Moleculer publishes a stream's chunks as fast as it reads
// them and the receiving side buffers without limit, so a slow database would let a whole upload
// pile up in memory; a stream is also tied to one replica. A call per chunk bounds memory to a
// chunk or two per transfer on every node, and any replica can take the next chunk. The chunk
// documents are written exactly as GridFSBucket writes them; the file document last, so a file
// is visible only once all its bytes are stored.
import { mongo, type Connection } from "mongoose";
import { transferred } from "../../shared/transfer-garbage";

/** GridFS's default chunk size: each chunk document stays far below the 16 MiB BSON limit. */
export const CHUNK_BYTES = 255 * 1024;
const BUCKET = "files";

export type FileId = mongo.ObjectId;

export interface StoredFile {
	_id: FileId;
	length: number;
	chunkSize: number;
	uploadDate: Date;
	filename: string;
	metadata?: Record<string, unknown>;
}

interface ChunkDoc {
	_id?: mongo.ObjectId;
	files_id: FileId;
	n: number;
	data: mongo.Binary;
}

export class FileStore {
	private readonly files: mongo.Collection<StoredFile>;
	private readonly chunks: mongo.Collection<ChunkDoc>;
	private readonly bucket: mongo.GridFSBucket;

	constructor(conn: Connection) {
		const db = conn.db!;
		this.files = db.collection<StoredFile>(`${BUCKET}.files`);
		this.chunks = db.collection<ChunkDoc>(`${BUCKET}.chunks`);
		this.bucket = new mongo.GridFSBucket(db, { bucketName: BUCKET, chunkSizeBytes: CHUNK_BYTES });
	}

	/** GridFS's own indexes, created at service start (the driver would make them on a first write). */
	async ensureIndexes(): Promise<void> {
		await this.chunks.createIndex({ files_id: 1, n: 1 }, { unique: true });
		await this.files.createIndex({ filename: 1, uploadDate: 1 });
	}

	static newId(): FileId {
		return new mongo.ObjectId();
	}

	static parseId(hex: unknown): FileId | null {
		return typeof hex === "string" && /^[0-9a-f]{24}$/.test(hex) ? new mongo.ObjectId(hex) : null;
	}

	/** Stores chunk `n` of a file being written; writing the same chunk again replaces it (a retried call). */
	async writeChunk(id: FileId, n: number, data: Buffer): Promise<void> {
		await this.chunks.updateOne({ files_id: id, n }, { $set: { data: new mongo.Binary(data) } }, { upsert: true });
		transferred(data.length);
	}

	/** Makes a file whose chunks are all written visible, as GridFSBucket does at the end of an upload. */
	async complete(id: FileId, length: number, filename: string, metadata: Record<string, unknown>): Promise<void> {
		await this.files.insertOne({ _id: id, length, chunkSize: CHUNK_BYTES, uploadDate: new Date(), filename, metadata });
	}

	/** Whether a file's document is written (its upload completed). */
	async exists(id: FileId): Promise<boolean> {
		return (await this.files.countDocuments({ _id: id }, { limit: 1 })) > 0;
	}

	/** Stores a whole buffer (a resized image, a generated file) as one new file. */
	async writeBuffer(buffer: Buffer, filename: string, metadata: Record<string, unknown>): Promise<{ id: FileId; length: number }> {
		const id = FileStore.newId();
		for (let n = 0; n * CHUNK_BYTES < buffer.length; n++) await this.writeChunk(id, n, buffer.subarray(n * CHUNK_BYTES, (n + 1) * CHUNK_BYTES));
		await this.complete(id, buffer.length, filename, metadata);
		return { id, length: buffer.length };
	}

	/** How many chunks of a file are stored. */
	countChunks(id: FileId): Promise<number> {
		return this.chunks.countDocuments({ files_id: id });
	}

	/** Chunk `n` of a stored file (empty past its end): a view of the driver's reply, not a copy of it. */
	async readChunk(id: FileId, n: number): Promise<Buffer> {
		const doc = await this.chunks.findOne({ files_id: id, n });
		if (!doc) return Buffer.alloc(0);
		const bytes = doc.data.buffer;
		transferred(bytes.byteLength);
		return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	}

	/** A whole stored file, through the driver's GridFSBucket (for files known to be small: images). */
	async readAll(id: FileId): Promise<Buffer> {
		const parts: Buffer[] = [];
		for await (const part of this.bucket.openDownloadStream(id)) parts.push(part as Buffer);
		return Buffer.concat(parts);
	}

	/** Removes a file and its chunks; a file whose document was never written (an upload cut short) too. */
	async remove(id: FileId): Promise<void> {
		await this.chunks.deleteMany({ files_id: id });
		await this.files.deleteOne({ _id: id });
	}
}
