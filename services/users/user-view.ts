// How a user looks to another user: the API email, who may see the real address, avatars.
import { createHash } from "node:crypto";
import type { ApiUser, Identity } from "../../shared/actions";
import { Role, isAdmin, isGuest, isModerator, isOwner } from "../../shared/roles";
import type { UserDoc } from "./models/user";
import type { ProfileFieldDoc } from "./profile-fields/profile-field-model";
import { profileDataView } from "./profile-fields/profile-fields";
import { avatarImagePaths, publicImageUrl } from "../../shared/public-images";

export const Visibility = { EVERYONE: 1, MEMBERS: 2, ADMINS: 3, NOBODY: 4, MODERATORS: 5 } as const;

/** The address the API shows as `email`: the real one only when everyone may see it. */
export function apiEmail(user: Pick<UserDoc, "_id" | "delivery_email" | "email_address_visibility" | "is_bot">, realmHost: string): string {
	if (user.is_bot || user.email_address_visibility === Visibility.EVERYONE) return user.delivery_email;
	return `user${user._id}@${realmHost}`;
}

/** Whether `viewer` may see `target`'s real address under the target's visibility setting. */
export function canSeeDeliveryEmail(viewer: Pick<Identity, "user_id" | "role"> | null, target: UserDoc): boolean {
	if (target.is_bot) return true;
	if (viewer && viewer.user_id === target._id) return true;
	switch (target.email_address_visibility) {
		case Visibility.EVERYONE:
			return true;
		case Visibility.MEMBERS:
			return !!viewer && !isGuest(viewer.role);
		case Visibility.MODERATORS:
			return !!viewer && isModerator(viewer.role);
		case Visibility.ADMINS:
			return !!viewer && isAdmin(viewer.role);
		default:
			return false;
	}
}

export function gravatarUrl(email: string, version: number, medium = false): string {
	const hash = createHash("md5").update(email.toLowerCase()).digest("hex");
	return `https://secure.gravatar.com/avatar/${hash}?d=identicon${medium ? "&s=500" : ""}&version=${version}`;
}

/**
 * A user's avatar URL as Zulip's avatar_url: the uploaded image (relative, under /user_avatars,
 * as Zulip's local upload backend gives it), else the gravatar; `medium` the 500×500 size.
 */
export function avatarUrl(user: Pick<UserDoc, "avatar_source" | "avatar_path" | "avatar_version" | "delivery_email">, medium = false): string {
	if (user.avatar_source === "U" && user.avatar_path) {
		const paths = avatarImagePaths(user.avatar_path);
		return `${publicImageUrl(medium ? paths.medium : paths.small)}?version=${user.avatar_version}`;
	}
	return gravatarUrl(user.delivery_email, user.avatar_version, medium);
}

export interface ViewOptions {
	clientGravatar: boolean;
	includeCustomProfileFields: boolean;
	realmHost: string;
	/** The realm's custom profile fields, needed when includeCustomProfileFields is set. */
	fields?: Map<number, ProfileFieldDoc>;
}

/** Zulip's date_joined format: ISO 8601 with microseconds and a +00:00 offset. */
function isoDate(d: Date): string {
	return d.toISOString().replace(/\.(\d{3})Z$/, ".$1000+00:00");
}

/**
 * The fields toApiUser reads (profile_data only with custom profile fields): a projection for
 * reads made only to show users, which leaves out their settings and credentials.
 */
export function apiUserFields(includeCustomProfileFields: boolean): Record<string, 1> {
	const fields: Record<string, 1> = {};
	for (const f of API_USER_FIELDS) fields[f] = 1;
	if (includeCustomProfileFields) fields.profile_data = 1;
	return fields;
}
const API_USER_FIELDS = [
	"delivery_email", "email_address_visibility", "full_name", "date_joined", "is_active", "role", "is_billing_admin", "is_bot",
	"timezone", "avatar_source", "avatar_path", "avatar_version", "bot_type", "bot_owner_id",
] as const satisfies readonly (keyof UserDoc)[];

export function toApiUser(target: UserDoc, viewer: Pick<Identity, "user_id" | "role"> | null, opts: ViewOptions): ApiUser {
	const seesEmail = canSeeDeliveryEmail(viewer, target);
	const gravatar = target.avatar_source === "G";
	const out: ApiUser = {
		user_id: target._id,
		email: apiEmail(target, opts.realmHost),
		delivery_email: seesEmail ? target.delivery_email : null,
		full_name: target.full_name,
		date_joined: isoDate(target.date_joined),
		is_active: target.is_active,
		is_owner: isOwner(target.role),
		is_admin: isAdmin(target.role),
		is_guest: target.role === Role.GUEST,
		is_billing_admin: target.is_billing_admin,
		role: target.role,
		is_bot: target.is_bot,
		timezone: target.timezone,
		// With client_gravatar the client computes gravatars itself, but only from an address it can see.
		avatar_url: gravatar && opts.clientGravatar && seesEmail ? null : avatarUrl(target),
		avatar_version: target.avatar_version,
	};
	// As Zulip's format_user_row: bot_type and bot_owner_id only for bots, profile data only for people.
	if (target.is_bot) Object.assign(out, { bot_type: target.bot_type, bot_owner_id: target.bot_owner_id });
	else if (opts.includeCustomProfileFields) out.profile_data = profileDataView(target.profile_data, opts.fields ?? new Map());
	return out;
}
