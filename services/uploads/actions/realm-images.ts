// POST and DELETE /realm/icon and /realm/logo: the organization's icon and logos, as Zulip's
// realm_icon.py and realm_logo.py (administrators only, checked by the gateway's route before the
// body is read). The icon is made a 100×100 PNG as an avatar is (Zulip's resize_realm_icon); a
// logo is fitted within 800×100, only ever scaled down (resize_logo). The original is kept beside
// it. The organization's fields belong to the users service (users.setRealmImage), which
// announces the change; the previous upload's images then go.
// Decision: Zulip keeps an icon's or logo's images at one path per organization, overwritten by
// the next upload and left in place by DELETE; here each upload has its own path (a random part,
// as avatars), so a new image never shows under an old URL, and images nobody names any more are
// removed.
import { call, requireUser, type Ctx } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { resizeAvatar, resizeLogo } from "../image-resize";
import { imageToken, removeImages } from "../image-store";
import { pendingUpload, sizeLimit, type Purpose } from "../transfer";
import { storeUploadedImage } from "../uploaded-image";
import type { UploadsDeps } from "./deps";

export const REALM_ICON_UPLOAD = "uploads.uploadRealmIcon";
export const REALM_LOGO_UPLOAD = "uploads.uploadRealmLogo";

/** Zulip's MAX_ICON_FILE_SIZE_MIB and MAX_LOGO_FILE_SIZE_MIB. */
export const realmIconPurpose: Purpose = sizeLimit(5);
export const realmLogoPurpose: Purpose = sizeLimit(5);

/** Zulip's answers to a body without exactly one file. */
export const ICON_FILE_COUNT = "You must upload exactly one icon.";
export const LOGO_FILE_COUNT = "You must upload exactly one logo.";

type Kind = "icon" | "logo" | "night_logo";
/** An image's paths: `<base>.png` (what is shown) and `<base>.original`. */
const pathsOf = (base: string) => [`${base}.png`, `${base}.original`];

export function realmImageActions(deps: UploadsDeps) {
	/** Makes the request's upload the organization's `kind`; answers its URL. */
	async function upload(ctx: Ctx<any>, kind: Kind, action: string, noFile: string): Promise<string> {
		const user = requireUser(ctx);
		const file = ctx.meta.upload;
		if (!file) throw badRequest(noFile);
		const pending = await pendingUpload(deps.Pending, file.upload_id, user, action);
		// As Zulip's upload_icon_image and upload_logo_image: the types an avatar may have (uploaded-image.ts).
		const base = `${user.realm_id}/realm/${kind}-${imageToken()}`;
		await storeUploadedImage(deps, user, file, pending, base, async (data) => [{ path: `${base}.png`, data: kind === "icon" ? (await resizeAvatar(data)).small : await resizeLogo(data) }]);
		return change(ctx, kind, `${base}.png`, base);
	}

	/** Tells the users service; on refusal the new images go, on success the previous ones. */
	async function change(ctx: Ctx<any>, kind: Kind, path: string | null, base: string | null): Promise<string> {
		let answer: { url: string; previous_path: string | null };
		try {
			answer = await call(ctx, "users.setRealmImage", { kind, path });
		} catch (err) {
			if (base) await removeImages(deps.store, deps.Images, pathsOf(base));
			throw err;
		}
		if (answer.previous_path) await removeImages(deps.store, deps.Images, pathsOf(answer.previous_path.replace(/\.png$/, "")));
		return answer.url;
	}

	return {
		uploadRealmIcon: {
			params: params({}),
			async handler(ctx: Ctx) {
				return { icon_url: await upload(ctx, "icon", REALM_ICON_UPLOAD, ICON_FILE_COUNT) };
			},
		},
		deleteRealmIcon: {
			params: params({}),
			async handler(ctx: Ctx) {
				return { icon_url: await change(ctx, "icon", null, null) };
			},
		},
		uploadRealmLogo: {
			params: params({ night: p.bool() }),
			async handler(ctx: Ctx<{ night: boolean }>) {
				await upload(ctx, ctx.params.night ? "night_logo" : "logo", REALM_LOGO_UPLOAD, LOGO_FILE_COUNT);
				return {};
			},
		},
		deleteRealmLogo: {
			params: params({ night: p.bool() }),
			async handler(ctx: Ctx<{ night: boolean }>) {
				await change(ctx, ctx.params.night ? "night_logo" : "logo", null, null);
				return {};
			},
		},
	};
}
