// Avatars: DELETE /users/me/avatar (back to the gravatar), the users service's side of
// POST /users/me/avatar, whose images the uploads service stores
// (services/uploads/actions/avatar-images.ts), and where GET /avatar/{user_id_or_email}
// redirects (Zulip's avatar view). Each change is announced as users.changed with the avatar
// fields, which the events service sends as Zulip's `realm_user` update. Rules: avatar-rules.ts.
import { call, requireUser } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import { avatarEventFields, changeAvatar, checkAvatarChange } from "./avatar-rules";
import { avatarUrl, gravatarUrl } from "../user-view";
import type { Ctx, ServiceDeps } from "../deps";

export function avatarActions({ db, changed, findUser, userByEmail }: ServiceDeps) {
	return {
		checkAvatarChange: {
			visibility: "public",
			params: params({}),
			handler(ctx: Ctx) {
				checkAvatarChange(db, requireUser(ctx));
				return {};
			},
		},

		setAvatar: {
			visibility: "public",
			params: params({ avatar_path: p.string({ max: 200 }) }),
			async handler(ctx: Ctx<{ avatar_path: string }>) {
				const actor = requireUser(ctx);
				// Checked again: the organization may have disabled changes while the image arrived.
				checkAvatarChange(db, actor);
				const { user, previous } = await changeAvatar(db, actor.user_id, ctx.params.avatar_path);
				await changed(ctx, [user._id], avatarEventFields(user));
				return { avatar_url: avatarUrl(user), previous_path: previous };
			},
		},

		deleteAvatar: {
			params: params({}),
			async handler(ctx: Ctx) {
				const actor = requireUser(ctx);
				checkAvatarChange(db, actor);
				const { user, previous } = await changeAvatar(db, actor.user_id, null);
				await changed(ctx, [user._id], avatarEventFields(user));
				// As Zulip's do_delete_avatar_image: the uploaded images go.
				if (previous) await call(ctx, "uploads.removeAvatarImages", { avatar_path: previous });
				return { avatar_url: avatarUrl(user) };
			},
		},

		/**
		 * As Zulip's avatar view: a user by ID or email (the address the caller may see, or the
		 * placeholder the API shows); a user not found by email gets the gravatar of that email.
		 * Decision: an unknown user ID, which Zulip would also treat as a gravatar "email", gets the
		 * same (the gravatar of the ID as written), so no ID is refused differently from an email.
		 */
		avatarRedirect: {
			visibility: "public",
			params: params({ user_id_or_email: p.string({ max: 320 }), medium: p.bool() }),
			async handler(ctx: Ctx<{ user_id_or_email: string; medium: boolean }>) {
				const viewer = requireUser(ctx);
				const who = ctx.params.user_id_or_email;
				const byId = /^\d{1,15}$/.test(who);
				const user = await (byId ? findUser(Number(who)) : userByEmail(viewer, who)).catch(() => null);
				return { url: user ? avatarUrl(user, ctx.params.medium) : gravatarUrl(who, 1, ctx.params.medium) };
			},
		},
	};
}
