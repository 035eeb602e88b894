// The data store behind the gateway's tus server (tus-endpoint.ts): every call is an action of the
// uploads service, which keeps each upload's state and bytes in its database (tus/tus-rules.ts),
// so nothing of an upload stays in this process between requests and any replica resumes it.
//
// The store's methods get only an upload's ID from @tus/server: who is asking (and the context to
// call with) comes from the request's scope, `tusScope`, which the endpoint enters around each
// request.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Readable } from "node:stream";
import { DataStore, Upload } from "@tus/utils";
import { call, type ActionMap, type Caller, type Meta, type TusUploadState } from "../../shared/actions";
import { transferred } from "../../shared/transfer-garbage";

export interface TusScope {
	caller: Caller;
	meta: Meta;
}

export const tusScope = new AsyncLocalStorage<TusScope>();

type TusAction = "uploads.tusCreate" | "uploads.tusState" | "uploads.tusWrite" | "uploads.tusRemove" | "uploads.tusFinish";

/** Calls a tus action of the uploads service as the request's user. */
export function callAsRequester<K extends TusAction>(name: K, params: ActionMap[K]["params"]): Promise<ActionMap[K]["result"]> {
	const scope = tusScope.getStore();
	if (!scope) throw new Error("a tus store call outside a request's scope");
	return call(scope.caller, name, params, { meta: scope.meta });
}

export class BusDataStore extends DataStore {
	/** The uploads service's chunk size (its answers say it; GridFS's default until the first one). */
	private chunkBytes = 255 * 1024;

	constructor() {
		super();
		this.extensions = ["creation", "creation-with-upload", "termination"];
	}

	private uploadOf(state: TusUploadState): Upload {
		this.chunkBytes = state.chunk_bytes;
		return new Upload({ id: state.upload_id, size: state.length, offset: state.offset, metadata: JSON.parse(state.metadata), creation_date: new Date(state.created).toISOString() });
	}

	override async create(upload: Upload): Promise<Upload> {
		const state = await callAsRequester("uploads.tusCreate", { upload_id: upload.id, length: upload.size ?? 0, metadata: JSON.stringify(upload.metadata ?? {}) });
		return Object.assign(upload, { creation_date: this.uploadOf(state).creation_date });
	}

	override async getUpload(id: string): Promise<Upload> {
		return this.uploadOf(await callAsRequester("uploads.tusState", { upload_id: id }));
	}

	override async remove(id: string): Promise<void> {
		await callAsRequester("uploads.tusRemove", { upload_id: id });
	}

	/**
	 * Sends the body's bytes at `offset` in pieces that never cross a chunk boundary, one awaited
	 * call at a time (one buffer, about a chunk, held here). A body cut short still stores what
	 * arrived, so the client resumes from there; answers the new offset.
	 */
	override async write(stream: Readable, id: string, offset: number): Promise<number> {
		const chunkBytes = this.chunkBytes;
		const piece = Buffer.allocUnsafe(chunkBytes);
		let at = offset;
		let filled = 0;
		const send = async () => {
			const n = filled;
			filled = 0;
			at = (await callAsRequester("uploads.tusWrite", { upload_id: id, offset: at, data: piece.subarray(0, n) })).offset;
			transferred(n);
		};
		try {
			for await (const data of stream as AsyncIterable<Buffer>) {
				let i = 0;
				while (i < data.length) {
					const room = chunkBytes - (at % chunkBytes) - filled;
					const take = Math.min(room, data.length - i);
					data.copy(piece, filled, i, i + take);
					filled += take;
					i += take;
					if (take === room) await send();
				}
			}
		} finally {
			if (filled > 0) await send();
		}
		return at;
	}
}
