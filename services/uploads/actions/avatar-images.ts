// POST /users/me/avatar: the caller's avatar from an uploaded image, as Zulip's set_avatar_backend
// and write_avatar_images: the original kept, a 100×100 and a 500×500 PNG made from it
// (image-resize.ts). Where avatar changes are disabled the body is not read (the purpose's check,
// users.checkAvatarChange). The user's avatar fields belong to the users service (users.setAvatar),
// which announces the change; the previous upload's images then go, as Zulip deletes them.
// A bot's avatar, uploaded with POST /bots or PATCH /bots/{bot_id} (Zulip's add_bot_backend and
// patch_bot_backend), is made the same way (botAvatarImages), for the users service, which
// completes those endpoints. Also the public images' reading (the gateway's /user_avatars route)
// and removal.
import { call, requireUser, type Ctx, type Identity, type UploadedFileMeta } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { avatarImagePaths } from "../../../shared/public-images";
import { resizeAvatar } from "../image-resize";
import { imageToken, openImage, removeImages } from "../image-store";
import { pendingUpload, sizeLimit, type Purpose } from "../transfer";
import { storeUploadedImage } from "../uploaded-image";
import type { UploadsDeps } from "./deps";

export const AVATAR_UPLOAD = "uploads.uploadAvatar";
/** The endpoints that take a bot's avatar (routes with an optional file), completed by the users service. */
export const BOT_AVATAR_UPLOADS = ["users.createBot", "users.updateBot"] as const;

/** Zulip's MAX_AVATAR_FILE_SIZE_MIB (POST /register's max_avatar_file_size_mib). */
const MAX_AVATAR_FILE_SIZE_MIB = 5;

/** Zulip's answer to a body without exactly one file, for this endpoint. */
export const AVATAR_FILE_COUNT = "You must upload exactly one avatar.";

export const avatarPurpose: Purpose = {
	...sizeLimit(MAX_AVATAR_FILE_SIZE_MIB),
	async check(ctx) {
		await call(ctx, "users.checkAvatarChange", {});
	},
};

/**
 * A bot's avatar: the same limit as a user's (Zulip's MAX_AVATAR_FILE_SIZE_MIB). Decision: Zulip
 * checks no size for a bot's avatar beyond its request limits; the same images are made of it, so
 * the same limit applies. No check before the body: avatar_changes_disabled is not for bots, as in
 * Zulip, and the bot's own checks need the body's fields (the users service makes them).
 */
export const botAvatarPurpose: Purpose = sizeLimit(MAX_AVATAR_FILE_SIZE_MIB);

export function avatarImageActions(deps: UploadsDeps) {
	const pathsOf = (base: string) => Object.values(avatarImagePaths(base));

	/** The avatar images of a completed upload (Zulip's upload_avatar_image); answers their base path. */
	async function makeAvatarImages(user: Identity, upload: UploadedFileMeta, pending: Awaited<ReturnType<typeof pendingUpload>>): Promise<string> {
		const base = `${user.realm_id}/${imageToken()}`;
		const paths = avatarImagePaths(base);
		await storeUploadedImage(deps, user, upload, pending, base, async (data) => {
			const resized = await resizeAvatar(data);
			return [
				{ path: paths.small, data: resized.small },
				{ path: paths.medium, data: resized.medium },
			];
		});
		return base;
	}

	return {
		uploadAvatar: {
			params: params({}),
			async handler(ctx: Ctx) {
				const user = requireUser(ctx);
				const upload = ctx.meta.upload;
				if (!upload) throw badRequest(AVATAR_FILE_COUNT);
				const pending = await pendingUpload(deps.Pending, upload.upload_id, user, AVATAR_UPLOAD);
				await call(ctx, "users.checkAvatarChange", {});
				const base = await makeAvatarImages(user, upload, pending);
				let answer: { avatar_url: string; previous_path: string | null };
				try {
					answer = await call(ctx, "users.setAvatar", { avatar_path: base });
				} catch (err) {
					await removeImages(deps.store, deps.Images, pathsOf(base));
					throw err;
				}
				if (answer.previous_path) await removeImages(deps.store, deps.Images, pathsOf(answer.previous_path));
				return { avatar_url: answer.avatar_url };
			},
		},
		/**
		 * For the users service, completing POST /bots or PATCH /bots/{bot_id} with a file (after
		 * the bot's checks): the bot's avatar images; answers their path, which the users service
		 * makes the bot's avatar, or removes (removeAvatarImages) if it then refuses.
		 */
		botAvatarImages: {
			visibility: "public",
			params: params({}),
			async handler(ctx: Ctx): Promise<{ avatar_path: string }> {
				const user = requireUser(ctx);
				const upload = ctx.meta.upload;
				if (!upload) throw badRequest("Invalid upload");
				const pending = await pendingUpload(deps.Pending, upload.upload_id, user);
				if (!(BOT_AVATAR_UPLOADS as readonly string[]).includes(pending.action)) throw badRequest("Invalid upload");
				return { avatar_path: await makeAvatarImages(user, upload, pending) };
			},
		},
		/** For the users service: an avatar's images, once the user no longer has it. */
		removeAvatarImages: {
			visibility: "public",
			params: params({ avatar_path: p.string({ max: 200 }) }),
			async handler(ctx: Ctx<{ avatar_path: string }>) {
				await removeImages(deps.store, deps.Images, pathsOf(ctx.params.avatar_path));
				return {};
			},
		},
		/** An image under /user_avatars, for the gateway to send to anyone (shared/public-images.ts). */
		openImage: {
			visibility: "public",
			params: params({ path: p.string({ max: 2000 }) }),
			async handler(ctx: Ctx<{ path: string }>) {
				return openImage(deps.Images, ctx.params.path);
			},
		},
	};
}
