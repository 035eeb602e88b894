// The organization's icon and logos: which images it shows (the uploads service stores them).
// Rules: realm-images.ts.
import type { RealmChanged } from "../../../shared/org-events";
import { p, params } from "../../../shared/params";
import { activeUserIds } from "../db";
import { requireAdmin, type Ctx, type ServiceDeps } from "../deps";
import { REALM_IMAGE_KINDS, realmImage, realmImageEventData, realmImageUpdate, type RealmImageKind } from "./realm-images";

export function realmImageActions({ db }: ServiceDeps) {
	return {
		/**
		 * The users service's side of POST and DELETE /realm/icon and /realm/logo (the uploads
		 * service stores the images, services/uploads/actions/realm-images.ts): makes `path` (null:
		 * the default) the organization's icon, logo or night logo, announced to every active user
		 * as Zulip's `realm` update_dict event (property icon, logo or night_logo). Answers the new
		 * URL and the previous upload's path, whose images the caller removes.
		 */
		setRealmImage: {
			visibility: "public",
			params: params({ kind: p.oneOf([...REALM_IMAGE_KINDS]), path: { ...p.string({ max: 200 }), nullable: true } }),
			async handler(ctx: Ctx<{ kind: RealmImageKind; path: string | null }>) {
				requireAdmin(ctx);
				const { kind, path } = ctx.params;
				const before = await db.Realm.findOneAndUpdate({ _id: db.realm._id }, realmImageUpdate(kind, path)).lean();
				if (!before) throw new Error("the organization is missing");
				db.realm = (await db.Realm.findById(db.realm._id).lean())!;
				const user_ids = await activeUserIds(db);
				await ctx.broadcast("users.realmChanged", { realm_id: db.realm._id, changes: realmImageEventData(db.realm, kind), as_dict: true, property: kind, user_ids } satisfies RealmChanged);
				return { url: realmImage(db.realm, kind).url, previous_path: before.images?.[kind]?.path ?? null };
			},
		},
	};
}
