// zerver_realm: the organization and its settings, as Zulip's Realm row; its group settings
// (`groupSettings`, each a group's ID as Zulip's row holds them) in place of the names this
// server's settings may hold, and its announcement channels under Zulip's field names.
import type { ExportRealm } from "../export-rows";
import type { Row } from "./tables";

/** The organization's images, each with zerver_realm's `<kind>_source` and `<kind>_version` (realm_icons/ holds the uploaded ones). */
export const REALM_IMAGE_KINDS = ["icon", "logo", "night_logo"] as const;
export type RealmImageKind = (typeof REALM_IMAGE_KINDS)[number];
/** zerver_realm's fields of the images, in Zulip's order. */
export const REALM_IMAGE_FIELDS = REALM_IMAGE_KINDS.flatMap((kind) => [`${kind}_source`, `${kind}_version`]);
/** An image's path in realm_icons/ (Zulip's names): its original, or the image shown (`<realm>/realm/icon.png`). */
export const realmImagePath = (realmId: number, kind: RealmImageKind, which: "original" | "png") => `${realmId}/realm/${kind}.${which}`;

/**
 * This server's settings that name a channel (without `realm_`; -1 for none), by Zulip's realm
 * field (a channel ID or null): the export writes them, the importer reads them (deploy/import/).
 */
export const CHANNEL_FIELDS: Record<string, string> = {
	new_stream_announcements_stream: "new_stream_announcements_stream_id",
	signup_announcements_stream: "signup_announcements_stream_id",
	zulip_update_announcements_stream: "zulip_update_announcements_stream_id",
	moderation_request_channel: "moderation_request_channel_id",
};

export function realmRows(realm: ExportRealm, groupSettings: Record<string, unknown>): Row[] {
	const settings = { ...realm.settings };
	const channels: Row = {};
	for (const [field, ours] of Object.entries(CHANNEL_FIELDS)) {
		if (!Object.hasOwn(settings, ours)) continue;
		const id = settings[ours];
		delete settings[ours];
		channels[field] = typeof id === "number" && id > 0 ? id : null;
	}
	return [
		{
			...settings,
			...channels,
			...groupSettings,
			id: realm.id,
			name: realm.name,
			description: realm.description,
			string_id: realm.string_id,
			date_created: realm.date_created,
			deactivated: realm.deactivated,
		},
	];
}
