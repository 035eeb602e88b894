// POST /register's navigation_views (the user's own), realm_playgrounds and realm_linkifiers.
import type { UsersDb } from "../db";
import { listViews } from "../navigation-views/navigation-view-rules";
import { listPlaygrounds } from "../catalog/playground-rules";
import { listLinkifiers } from "../catalog/linkifier-rules";

export async function listSettingsState(db: UsersDb, userId: number, wants: (type: string) => boolean) {
	const out: Record<string, unknown> = {};
	if (wants("navigation_view")) out.navigation_views = await listViews(db, userId);
	if (wants("realm_playgrounds")) out.realm_playgrounds = await listPlaygrounds(db);
	if (wants("realm_linkifiers")) out.realm_linkifiers = await listLinkifiers(db);
	return out;
}
