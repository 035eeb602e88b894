// GET and POST /channel_folders, PATCH /channel_folders/{channel_folder_id} (administrators
// change them). The rules live in ../folders.ts.
import { requireUser, type Ctx } from "../../../shared/actions";
import { adminRequired } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { isAdmin } from "../../../shared/roles";
import type { ChannelsDb } from "../db";
import { createFolder, folderView, updateFolder } from "../folders";

export function channelFolderActions(db: ChannelsDb) {
	return {
		listFolders: {
			params: params({ include_archived: p.bool({ optional: true }) }),
			async handler(ctx: Ctx<{ include_archived?: boolean }>) {
				requireUser(ctx);
				const filter = ctx.params.include_archived ? { realm_id: db.realmId } : { realm_id: db.realmId, is_archived: false };
				return { channel_folders: (await db.ChannelFolder.find(filter).sort({ order: 1 }).lean()).map(folderView) };
			},
		},

		createFolder: {
			params: params({ name: p.string(), description: p.string({ optional: true }) }),
			async handler(ctx: Ctx<{ name: string; description?: string }>) {
				const actor = requireUser(ctx);
				if (!isAdmin(actor.role)) throw adminRequired();
				return { channel_folder_id: await createFolder(db, actor.user_id, ctx.params.name, ctx.params.description ?? "") };
			},
		},

		updateFolder: {
			params: params({ channel_folder_id: p.int(), name: p.string({ optional: true }), description: p.string({ optional: true }), is_archived: p.bool({ optional: true }) }),
			async handler(ctx: Ctx<{ channel_folder_id: number; name?: string; description?: string; is_archived?: boolean }>) {
				const actor = requireUser(ctx);
				if (!isAdmin(actor.role)) throw adminRequired();
				const { channel_folder_id, ...changes } = ctx.params;
				await updateFolder(db, channel_folder_id, changes);
				return {};
			},
		},
	};
}
