// The bus side of resumable uploads (the tus protocol at /api/v1/tus), called by the gateway only
// (services/api/tus-store.ts), never routed: create, read the state of, write to, finish and
// remove one upload of the caller's. The rules are in tus/tus-rules.ts.
import { requireUser, type Ctx } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { fromBus, type BusBytes } from "../../../shared/bus-bytes";
import { p, params } from "../../../shared/params";
import { createTus, finishTus, removeTus, tusState, writeTus } from "../tus/tus-rules";
import { USER_UPLOAD } from "./user-uploads";
import type { UploadsDeps } from "./deps";

const uploadId = () => p.string({ max: 64 });

export function tusActions(deps: UploadsDeps) {
	return {
		tusCreate: {
			visibility: "public",
			// `metadata`: Upload-Metadata's pairs as JSON (a value may be null: a key sent without one).
			params: params({ upload_id: uploadId(), length: p.int({ min: 0 }), metadata: p.string({ max: 64 * 1024 }) }),
			async handler(ctx: Ctx<{ upload_id: string; length: number; metadata: string }>) {
				let metadata: unknown;
				try {
					metadata = JSON.parse(ctx.params.metadata);
				} catch {
					metadata = undefined;
				}
				if (!metadata || typeof metadata !== "object" || Array.isArray(metadata) || !Object.values(metadata).every((v) => v === null || typeof v === "string")) throw badRequest("Invalid metadata");
				return createTus(deps, requireUser(ctx), ctx.params.upload_id, ctx.params.length, metadata as Record<string, string | null>, deps.purposes[USER_UPLOAD].maxBytes);
			},
		},
		tusState: {
			visibility: "public",
			params: params({ upload_id: uploadId() }),
			async handler(ctx: Ctx<{ upload_id: string }>) {
				return tusState(deps, requireUser(ctx), ctx.params.upload_id);
			},
		},
		tusWrite: {
			visibility: "public",
			// `data`: a Buffer, or base64 from a gateway of an earlier version (fromBus checks it).
			params: params({ upload_id: uploadId(), offset: p.int({ min: 0 }), data: { type: "any" } }),
			async handler(ctx: Ctx<{ upload_id: string; offset: number; data: BusBytes }>) {
				return { offset: await writeTus(deps, requireUser(ctx), ctx.params.upload_id, ctx.params.offset, fromBus(ctx.params.data)) };
			},
		},
		tusFinish: {
			visibility: "public",
			params: params({ upload_id: uploadId() }),
			async handler(ctx: Ctx<{ upload_id: string }>) {
				return finishTus(ctx, deps, requireUser(ctx), ctx.params.upload_id);
			},
		},
		tusRemove: {
			visibility: "public",
			params: params({ upload_id: uploadId() }),
			async handler(ctx: Ctx<{ upload_id: string }>) {
				await removeTus(deps, requireUser(ctx), ctx.params.upload_id);
				return {};
			},
		},
	};
}
