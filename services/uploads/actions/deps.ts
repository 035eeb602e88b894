// What the uploads service's action groups share.
import type { Model } from "mongoose";
import type { FileStore } from "../file-store";
import type { AttachmentDoc } from "../models/attachment";
import type { PendingUploadDoc } from "../models/pending-upload";
import type { TusUploadDoc } from "../models/tus-upload";
import type { ImageAttachmentDoc } from "../models/image-attachment";
import type { PublicImageDoc } from "../models/public-image";
import type { UploadSpace } from "../upload-space";
import type { Purpose } from "../transfer";
import type { SpectatorAccess } from "../file-access";

export interface UploadsDeps {
	store: FileStore;
	Attachment: Model<AttachmentDoc>;
	Pending: Model<PendingUploadDoc>;
	/** Resumable uploads (tus/tus-rules.ts). */
	Tus: Model<TusUploadDoc>;
	/** Uploaded images: their dimensions and thumbnails (thumbnails.ts). */
	ImageAttachment: Model<ImageAttachmentDoc>;
	/** Custom emoji and avatar images, served without credentials (image-store.ts). */
	Images: Model<PublicImageDoc>;
	space: UploadSpace;
	nextId: (entity: string) => Promise<number>;
	/** The key temporary URLs are signed with (temporary-urls.ts). */
	urlKey: Buffer;
	/** Whether visitors without credentials may read web-public files at all (file-access.ts). */
	spectators: SpectatorAccess;
	/** Each file endpoint's limits, by the action that completes its uploads. */
	purposes: Record<string, Purpose>;
}
