// The bus side of a file in transit, called by the gateway only (services/api/file-upload.ts and
// file-download.ts), never routed: start an upload for a file endpoint, store its chunks, drop it;
// read a stored file's chunks.
import { requireUser, type Ctx } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { fromBus, type BusBytes } from "../../../shared/bus-bytes";
import { p, params } from "../../../shared/params";
import { CHUNK_BYTES, FileStore } from "../file-store";
import { dropUpload, pendingUpload, startUpload, storeChunk } from "../transfer";
import type { UploadsDeps } from "./deps";

/** The most chunks any upload may have (a 2 GiB file); a chunk number past it is refused unread. */
const MAX_CHUNKS = 8192;

export function transferActions(deps: UploadsDeps) {
	return {
		begin: {
			visibility: "public",
			// `params`: the route's parameters (path and query), for the purpose's own checks.
			params: params({ action: p.string(), declared_bytes: p.int({ min: 0 }), params: p.json({ optional: true }) }),
			async handler(ctx: Ctx<{ action: string; declared_bytes: number; params?: Record<string, unknown> }>) {
				const user = requireUser(ctx);
				const purpose = Object.hasOwn(deps.purposes, ctx.params.action) ? deps.purposes[ctx.params.action] : undefined;
				if (!purpose) throw badRequest("Invalid upload");
				await purpose.check?.(ctx, ctx.params.params ?? {});
				const upload_id = await startUpload(deps.Pending, user, ctx.params.action, purpose, ctx.params.declared_bytes);
				return { upload_id, chunk_bytes: CHUNK_BYTES };
			},
		},
		writeChunk: {
			visibility: "public",
			// `data`: a Buffer, or base64 from a gateway of an earlier version (fromBus checks it).
			params: params({ upload_id: p.string(), n: p.int({ min: 0, max: MAX_CHUNKS }), data: { type: "any" } }),
			async handler(ctx: Ctx<{ upload_id: string; n: number; data: BusBytes }>) {
				const data = fromBus(ctx.params.data);
				const pending = await pendingUpload(deps.Pending, ctx.params.upload_id, requireUser(ctx));
				await storeChunk(deps.store, deps.Pending, pending, deps.purposes[pending.action], ctx.params.n, data);
				return {};
			},
		},
		abort: {
			visibility: "public",
			params: params({ upload_id: p.string() }),
			async handler(ctx: Ctx<{ upload_id: string }>) {
				const pending = await pendingUpload(deps.Pending, ctx.params.upload_id, requireUser(ctx)).catch(() => null);
				if (pending) await dropUpload(deps.store, deps.Pending, pending._id);
				return {};
			},
		},
		/** Chunk `n` of a file the caller was allowed to open (open, openTemporary), a Buffer (shared/bus-bytes.ts). */
		readChunk: {
			visibility: "public",
			params: params({ file_id: p.string(), n: p.int({ min: 0, max: MAX_CHUNKS }) }),
			async handler(ctx: Ctx<{ file_id: string; n: number }>) {
				const id = FileStore.parseId(ctx.params.file_id);
				if (!id) throw badRequest("Invalid file");
				return { data: await deps.store.readChunk(id, ctx.params.n) };
			},
		},
	};
}
