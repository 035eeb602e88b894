// PATCH /realm: which organization settings may change, who may change them, and their values,
// as Zulip's update_realm (zerver/views/realm.py) checks them. Every value is checked before
// anything is written; the changes are then written in one conditional update, announced once
// (`users.realmChanged`, whose payload the events service turns into `realm` events) and seen
// by every node at once (`users.groupsChanged` drops each node's organization snapshot).
// `npm run manage -- realm-setting` goes through `applyRealmChanges` too.
import type { Context } from "moleculer";
import type { Identity } from "../../../shared/actions";
import { badRequest, ownerRequired } from "../../../shared/errors";
import { INT32_MAX } from "../../../shared/params";
import { sameGroupSetting, unwrapSettingChange, type GroupGraph, type GroupSettingValue } from "../../../shared/group-settings";
import type { GroupsChanged, RealmChanged } from "../../../shared/org-events";
import { isOwner } from "../../../shared/roles";
import { activeUserIds, type UsersDb } from "../db";
import { REALM_GROUP_SETTING_DEFAULTS, realmSetting } from "./realm-settings";
import { checkSettingValue } from "../groups/user-group-rules";
import { fullMemberIds, fullMembersChange } from "../groups/system-groups";
import { resetPending } from "../groups/full-member-promotion";

export const MAX_REALM_NAME_LENGTH = 40;
export const MAX_REALM_DESCRIPTION_LENGTH = 1000;

/** Time limits that take a number of seconds or "unlimited" (stored as null). */
export const TIME_LIMIT_SETTINGS = [
	"message_content_edit_limit_seconds",
	"message_content_delete_limit_seconds",
	"move_messages_within_stream_limit_seconds",
	"move_messages_between_streams_limit_seconds",
] as const;

export const REALM_TOPICS_POLICIES = ["allow_empty_topic", "disable_empty_topic"] as const;
export const EDIT_HISTORY_POLICIES = ["all", "moves", "none"] as const;

/** Plain settings PATCH /realm takes, by API name (stored as `realm_<name>`). */
export const PLAIN_SETTINGS = ["allow_message_editing", "enable_spectator_access", "waiting_period_threshold", "message_edit_history_visibility_policy", "topics_policy", "enable_read_receipts", "avatar_changes_disabled", "digest_emails_enabled", "digest_weekday"] as const;

/** Zulip's Realm.DIGEST_WEEKDAY_VALUES: Monday (0) to Sunday (6), as Python's weekday(). */
export const DIGEST_WEEKDAYS = [0, 1, 2, 3, 4, 5, 6] as const;

/** Zulip's announcement channels (-1: none); new channel announcements are the ones posted here. */
export const ANNOUNCEMENT_CHANNEL_SETTINGS = ["new_stream_announcements_stream_id", "signup_announcements_stream_id", "zulip_update_announcements_stream_id"] as const;

/** Settings only owners may change (Zulip's rule). */
const OWNER_ONLY = new Set(["waiting_period_threshold", "can_create_groups", "can_invite_users_group", "can_manage_all_groups", "create_multiuse_invite_group"]);

/**
 * Zulip's limits on what each organization-level group setting may name: whether the `nobody`
 * and `everyone` system groups are allowed, and the system groups a setting is limited to.
 */
const SETTING_LIMITS: Record<string, { nobody: boolean; everyone: boolean; systemOnly?: string[] }> = {
	can_add_custom_emoji_group: { nobody: false, everyone: false },
	can_add_subscribers_group: { nobody: true, everyone: false },
	can_create_bots_group: { nobody: true, everyone: false },
	can_create_groups: { nobody: true, everyone: false },
	can_create_write_only_bots_group: { nobody: true, everyone: false },
	can_create_public_channel_group: { nobody: true, everyone: false },
	can_create_private_channel_group: { nobody: true, everyone: false },
	can_create_web_public_channel_group: { nobody: true, everyone: false, systemOnly: ["role:moderators", "role:administrators", "role:owners", "role:nobody"] },
	can_delete_any_message_group: { nobody: true, everyone: false },
	can_delete_own_message_group: { nobody: true, everyone: true },
	can_invite_users_group: { nobody: true, everyone: false },
	can_manage_all_groups: { nobody: false, everyone: false },
	can_mention_many_users_group: { nobody: true, everyone: true },
	can_move_messages_between_channels_group: { nobody: true, everyone: false },
	can_move_messages_between_topics_group: { nobody: true, everyone: true },
	create_multiuse_invite_group: { nobody: true, everyone: false },
};

export const REALM_GROUP_SETTINGS = Object.keys(REALM_GROUP_SETTING_DEFAULTS);

export type RealmPatch = Record<string, unknown>;

/** What a request changes: the realm document's fields, and each change as the API names it. */
export interface RealmChanges {
	fields: Record<string, unknown>;
	/** Property (API name) -> new value, for events, the answer and the snapshot. */
	changes: Record<string, unknown>;
	/** Conditions the stored document must still meet (group settings sent with `old`). */
	expect: Record<string, unknown>;
}

/**
 * "unlimited" or a positive number of seconds (Zulip's parse_message_time_limit_setting), at most
 * what its PositiveIntegerField holds.
 */
function timeLimit(name: string, raw: unknown): number | null {
	if (raw === "unlimited") return null;
	if (typeof raw === "number" && Number.isInteger(raw) && raw > 0 && raw <= INT32_MAX) return raw;
	throw badRequest(`Bad value for '${name}': ${typeof raw === "string" ? raw : JSON.stringify(raw)}`);
}

function checkGroupLimits(graph: GroupGraph, name: string, value: GroupSettingValue): void {
	const limits = SETTING_LIMITS[name];
	if (!limits) return;
	if (typeof value !== "number") {
		if (limits.systemOnly) throw badRequest(`'${name}' must be a system user group.`);
		return;
	}
	const group = graph.get(value)!;
	const refused =
		group.name === "role:internet" ||
		(group.name === "role:nobody" && !limits.nobody) ||
		(group.name === "role:everyone" && !limits.everyone) ||
		(limits.systemOnly && !limits.systemOnly.includes(group.name));
	if (refused) throw badRequest(`'${name}' setting cannot be set to '${group.name}' group.`);
}

/** Checks every parameter of a PATCH /realm request; writes nothing. */
export async function planRealmUpdate(
	db: UsersDb,
	graph: GroupGraph,
	actor: Identity,
	q: RealmPatch,
	channelFacts: (channelId: number) => Promise<{ invite_only: boolean; is_archived: boolean } | null>,
): Promise<RealmChanges> {
	const given = (k: string) => q[k] !== undefined;
	if ([...OWNER_ONLY].some(given) && !isOwner(actor.role)) throw ownerRequired();

	const realm = db.realm;
	const out: RealmChanges = { fields: {}, changes: {}, expect: {} };
	const setSetting = (name: string, value: unknown) => {
		if (JSON.stringify(realmSetting(realm, `realm_${name}`)) === JSON.stringify(value)) return;
		out.fields[`settings.realm_${name}`] = value;
		out.changes[name] = value;
	};

	if (given("name") && q.name !== realm.name) {
		out.fields.name = q.name;
		out.changes.name = q.name;
	}
	if (given("description") && q.description !== realm.description) {
		out.fields.description = q.description;
		out.changes.description = q.description;
	}
	for (const name of TIME_LIMIT_SETTINGS) if (given(name)) setSetting(name, timeLimit(name, q[name]));
	for (const name of PLAIN_SETTINGS) if (given(name)) setSetting(name, q[name]);
	if (out.changes.topics_policy !== undefined) {
		// The older boolean Zulip still sends beside it.
		out.fields["settings.realm_mandatory_topics"] = out.changes.topics_policy === "disable_empty_topic";
	}

	if (given("moderation_request_channel_id")) {
		const id = q.moderation_request_channel_id as number;
		if (id >= 0) {
			const channel = await channelFacts(id);
			if (!channel || channel.is_archived) throw badRequest("Invalid channel ID");
			if (!channel.invite_only) throw badRequest("Moderation request channel must be private.");
		}
		setSetting("moderation_request_channel_id", id >= 0 ? id : -1);
	}
	// Announcement channels: any channel that is not archived (organization administrators may see every one).
	for (const name of ANNOUNCEMENT_CHANNEL_SETTINGS) {
		if (!given(name)) continue;
		const id = q[name] as number;
		if (id >= 0 && id !== realmSetting(realm, `realm_${name}`)) {
			const channel = await channelFacts(id);
			if (!channel || channel.is_archived) throw badRequest("Invalid channel ID");
		}
		setSetting(name, id >= 0 ? id : -1);
	}

	for (const name of REALM_GROUP_SETTINGS) {
		if (!given(name)) continue;
		const current = graph.realm[name];
		const next = unwrapSettingChange(name, q[name], current);
		if (next === undefined) throw badRequest(`Invalid ${name}`);
		const value = await checkSettingValue(db, graph, name, next);
		checkGroupLimits(graph, name, value);
		const stored = realm.settings?.[`realm_${name}`];
		// A concurrent change between this check and the write must not be overwritten.
		if ((q[name] as { old?: unknown }).old !== undefined) out.expect[`settings.realm_${name}`] = stored === undefined ? { $exists: false } : stored;
		if (sameGroupSetting(value, current)) continue;
		out.fields[`settings.realm_${name}`] = value;
		out.changes[name] = value;
	}
	return out;
}

/**
 * Writes the changes in one update (refused if a group setting sent with `old` changed
 * meanwhile), reloads the organization, and tells every node and every client.
 */
export async function applyRealmChanges(db: UsersDb, ctx: Context<unknown>, plan: RealmChanges, invalidate: () => void): Promise<void> {
	if (!Object.keys(plan.fields).length) return;
	// A new waiting period moves members in or out of role:fullmembers (Zulip's update_users_in_full_members_system_group).
	const fullBefore = plan.changes.waiting_period_threshold !== undefined ? await fullMemberIds(db, true) : undefined;
	const res = await db.Realm.updateOne({ _id: db.realm._id, ...plan.expect }, { $set: plan.fields });
	if (res.matchedCount === 0) {
		const name = Object.keys(plan.expect)[0]?.replace(/^settings\.realm_/, "") ?? "setting";
		throw badRequest(`'old' value for ${name} does not match expected value.`);
	}
	const user_ids = await reloadAndAnnounce(db, ctx, { realm_id: db.realm._id, changes: plan.changes }, invalidate);
	const events = fullBefore ? await fullMembersChange(db, fullBefore, await fullMemberIds(db)) : [];
	if (fullBefore) await resetPending(db);
	await ctx.broadcast("users.groupsChanged", { realm_id: db.realm._id, ...(events.length ? { events, user_ids } : {}) } satisfies GroupsChanged);
}

/** Reloads the organization and tells every active user of the change; answers their IDs. */
async function reloadAndAnnounce(db: UsersDb, ctx: Context<unknown>, change: Omit<RealmChanged, "user_ids">, invalidate: () => void): Promise<number[]> {
	db.realm = (await db.Realm.findById(db.realm._id).lean())!;
	invalidate();
	const user_ids = await activeUserIds(db);
	await ctx.broadcast("users.realmChanged", { ...change, user_ids } satisfies RealmChanged);
	return user_ids;
}

/** The organization settings that name a channel, which archiving it clears. */
export const CHANNEL_SETTINGS = ["moderation_request_channel_id", ...ANNOUNCEMENT_CHANNEL_SETTINGS] as const;

/**
 * A channel was archived: the settings naming it become -1 (none), announced as one
 * `update_dict` event, as Zulip's maybe_set_moderation_or_announcement_channels_none does.
 * Each setting is cleared only while it still names the channel, so a concurrent change stays.
 */
export async function clearChannelSettings(db: UsersDb, ctx: Context<unknown>, channelId: number, invalidate: () => void): Promise<string[]> {
	const stored = await db.Realm.findById(db.realm._id).lean();
	if (!stored) return [];
	const cleared: string[] = [];
	for (const name of CHANNEL_SETTINGS) {
		const key = `settings.realm_${name}`;
		if (realmSetting(stored, `realm_${name}`) !== channelId) continue;
		const res = await db.Realm.updateOne({ _id: stored._id, [key]: channelId }, { $set: { [key]: -1 } });
		if (res.modifiedCount) cleared.push(name);
	}
	if (!cleared.length) return [];
	const changes = Object.fromEntries(cleared.map((name) => [name, -1]));
	await reloadAndAnnounce(db, ctx, { realm_id: stored._id, changes, as_dict: true }, invalidate);
	await ctx.broadcast("users.groupsChanged", { realm_id: stored._id } satisfies GroupsChanged);
	return cleared;
}
