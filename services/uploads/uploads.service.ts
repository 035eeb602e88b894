// The uploads service: files (its own database, `<prefix>_uploads`), their bytes in GridFS
// (file-store.ts). This file wires the service; the endpoints are in actions/, the rules of a file
// in transit in transfer.ts, who may read a file in file-access.ts. Organization exports
// (POST /export/realm): export/ is the background job that writes the archive into GridFS; the
// Zulip format it writes is shared/zulip-format/'s.
import type { Connection } from "mongoose";
import type { Context, ServiceSchema } from "moleculer";
import type { Config } from "../../shared/config";
import { connectServiceDb, counters, ensureIndexes } from "../../shared/db";
import { FileStore } from "./file-store";
import { attachmentModel } from "./models/attachment";
import { pendingUploadModel } from "./models/pending-upload";
import { tusUploadModel } from "./models/tus-upload";
import { sweepTus } from "./tus/tus-rules";
import { tusActions } from "./actions/tus";
import { UploadSpace, usageModel } from "./upload-space";
import { signingKey } from "./temporary-urls";
import { sizeLimit, sweepAbandoned } from "./transfer";
import type { UploadsDeps } from "./actions/deps";
import { transferActions } from "./actions/transfer";
import { USER_UPLOAD, userUploadActions } from "./actions/user-uploads";
import { realmExportActions } from "./actions/realm-exports";
import { exportWorker } from "./export/worker";
import { imagePreviewActions } from "./actions/image-previews";
import { imageAttachmentModel } from "./models/image-attachment";
import { attachmentActions } from "./actions/attachments";
import { channelPublicityChanged } from "./claim-rules";
import type { ChannelUpdated } from "../../shared/org-events";
import { CUSTOM_EMOJI, emojiImageActions, emojiPurpose } from "./actions/emoji-images";
import { AVATAR_UPLOAD, avatarImageActions, avatarPurpose, BOT_AVATAR_UPLOADS, botAvatarPurpose } from "./actions/avatar-images";
import { publicImageModel } from "./models/public-image";
import { REALM_ICON_UPLOAD, REALM_LOGO_UPLOAD, realmIconPurpose, realmImageActions, realmLogoPurpose } from "./actions/realm-images";

const MIB = 1024 * 1024;
/** How often each replica removes the uploads left behind (transfer.ts PENDING_TTL_MS). */
const SWEEP_MS = 10 * 60 * 1000;

export function uploadsService(config: Config & { mongoUrl: string }): ServiceSchema {
	let conn: Connection;
	let sweeper: NodeJS.Timeout | undefined;
	const deps = {} as UploadsDeps;
	const exportJobs = exportWorker(config);
	deps.purposes = {
		[USER_UPLOAD]: sizeLimit(config.maxFileUploadSizeMib),
		[CUSTOM_EMOJI]: emojiPurpose,
		[AVATAR_UPLOAD]: avatarPurpose,
		...Object.fromEntries(BOT_AVATAR_UPLOADS.map((action) => [action, botAvatarPurpose])),
		[REALM_ICON_UPLOAD]: realmIconPurpose,
		[REALM_LOGO_UPLOAD]: realmLogoPurpose,
	};
	deps.spectators = { serverEnabled: config.webPublicStreams };

	return {
		name: "uploads",
		actions: { ...transferActions(deps), ...tusActions(deps), ...realmExportActions(exportJobs.deps), ...userUploadActions(deps), ...imagePreviewActions(deps), ...attachmentActions(deps), ...emojiImageActions(deps), ...avatarImageActions(deps), ...realmImageActions(deps) },

		events: {
			/** Claims of a channel's messages follow its publicity (claim-rules.ts). */
			async "channels.updated"(ctx: Context<ChannelUpdated>) {
				await channelPublicityChanged(deps.Attachment, ctx.params.channel_id, ctx.params.changes);
			},
		},

		async started(this: any) {
			conn = await connectServiceDb(config.mongoUrl, config.dbPrefix, "uploads");
			const store = new FileStore(conn);
			Object.assign(deps, {
				store,
				Attachment: attachmentModel(conn),
				Pending: pendingUploadModel(conn),
				Tus: tusUploadModel(conn),
				ImageAttachment: imageAttachmentModel(conn),
				Images: publicImageModel(conn),
				space: new UploadSpace(usageModel(conn), config.uploadQuotaMib * MIB),
				nextId: counters(conn),
			});
			exportJobs.start({ conn, store, space: deps.space, nextId: deps.nextId, broker: this.broker, logger: this.logger });
			await ensureIndexes(conn);
			await store.ensureIndexes();
			deps.urlKey = await signingKey(conn);
			sweeper = setInterval(() => {
				sweepAbandoned(deps.store, deps.Pending).catch((err: unknown) => this.logger.warn({ err }, "removing abandoned uploads failed"));
				sweepTus(deps).catch((err: unknown) => this.logger.warn({ err }, "removing abandoned resumable uploads failed"));
				this.actions.sweepUnclaimed({}).catch((err: unknown) => this.logger.warn({ err }, "removing unclaimed attachments failed"));
			}, SWEEP_MS);
			sweeper.unref();
		},

		async stopped() {
			clearInterval(sweeper);
			await exportJobs.stop();
			await conn?.close();
		},
	} as ServiceSchema;
}
