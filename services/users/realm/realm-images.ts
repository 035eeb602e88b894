// The organization's icon and logos (Zulip's realm_icon.py and realm_logo.py): each is either
// uploaded (source "U", its images stored by the uploads service under /user_avatars) or the
// default; each change raises its version, which its URL carries. Their state in POST /register
// and the `realm` update_dict event's data (Zulip's get_realm_logo_data and the icon's).
import type { RealmDoc } from "../models/realm";
import { publicImageUrl } from "../../../shared/public-images";

export type RealmImageKind = "icon" | "logo" | "night_logo";
export const REALM_IMAGE_KINDS: readonly RealmImageKind[] = ["icon", "logo", "night_logo"];

/** Zulip's initial icon_version, logo_version and night_logo_version. */
const FIRST_VERSION = 1;

/** The image's URL and source. Decision: the defaults are the static images this server always named (the icon's "G" source without a gravatar). */
export function realmImage(realm: RealmDoc, kind: RealmImageKind): { url: string; source: string } {
	const image = realm.images?.[kind];
	if (image?.path) return { url: `${publicImageUrl(image.path)}?version=${FIRST_VERSION + image.changes}`, source: "U" };
	return kind === "icon" ? { url: `${realm.url}/static/images/logo/org_avatar.png`, source: "G" } : { url: `${realm.url}/static/images/logo/zulip-org-logo.svg`, source: "D" };
}

/** The `realm` update_dict event's data for a change of `kind`, as Zulip sends it. */
export function realmImageEventData(realm: RealmDoc, kind: RealmImageKind): Record<string, string> {
	const { url, source } = realmImage(realm, kind);
	return { [`${kind}_url`]: url, [`${kind}_source`]: source };
}

/** The fields of POST /register's realm state. */
export function realmImageState(realm: RealmDoc): Record<string, string> {
	const state: Record<string, string> = {};
	for (const kind of REALM_IMAGE_KINDS) {
		const { url, source } = realmImage(realm, kind);
		state[`realm_${kind}_url`] = url;
		state[`realm_${kind}_source`] = source;
	}
	return state;
}

/**
 * The document update that makes `path` (null: the default) the organization's `kind`, one
 * version up (Zulip's do_change_icon_source and do_change_logo_source). The version is counted
 * by $inc, so two changes at once get two versions.
 */
export function realmImageUpdate(kind: RealmImageKind, path: string | null): Record<string, unknown> {
	return { $set: { [`images.${kind}.path`]: path }, $inc: { [`images.${kind}.changes`]: 1 } };
}
