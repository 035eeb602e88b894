// User groups: creating and editing them, their members and subgroups, who may do so, and the
// group graph every permission check evaluates (shared/group-settings.ts).
import { isDuplicateKey } from "../../../shared/db";
import type { Identity } from "../../../shared/actions";
import { badRequest, insufficientPermission } from "../../../shared/errors";
import { GroupGraph, isGroupSettingValue, unwrapSettingChange, type GroupGraphData, type GroupSettingValue } from "../../../shared/group-settings";
import { activeUserIds, type UsersDb, type UsersReads } from "../db";
import { insertGroup } from "./group-insert";
import { GROUP_SETTINGS, type GroupSettingName, type UserGroupDoc } from "./user-group-model";
import { withSystemMembers } from "./system-groups";
import { REALM_GROUP_SETTING_DEFAULTS, realmSetting } from "../realm/realm-settings";

export const NAME_MAX = 100;
export const DESCRIPTION_MAX = 1024;

/** Every group of the realm, system groups with their role-derived members. */
export async function loadGroups(db: UsersReads): Promise<UserGroupDoc[]> {
	const [groups, users] = await Promise.all([
		db.UserGroup.find({ realm_id: db.realm._id }).sort({ _id: 1 }).lean(),
		db.User.find({ realm_id: db.realm._id }, { _id: 1, role: 1, date_joined: 1, is_active: 1 }).lean(),
	]);
	return withSystemMembers(groups, users, db);
}

export async function graphData(db: UsersReads): Promise<GroupGraphData> {
	const [groups, active_user_ids] = await Promise.all([loadGroups(db), activeUserIds(db)]);
	const idOf = new Map(groups.map((g) => [g.name, g._id]));
	const realm: Record<string, GroupSettingValue> = {};
	for (const [key, systemName] of Object.entries(REALM_GROUP_SETTING_DEFAULTS)) {
		realm[key] = (db.realm.settings?.[`realm_${key}`] as GroupSettingValue | undefined) ?? idOf.get(systemName)!;
	}
	return {
		groups: groups.map((g) => ({ id: g._id, name: g.name, members: g.members, subgroups: g.direct_subgroup_ids, deactivated: g.deactivated })),
		active_user_ids,
		realm,
		empty_topic_display_name: realmSetting<string>(db.realm, "realm_empty_topic_display_name"),
		spectator_access: realmSetting<boolean>(db.realm, "realm_enable_spectator_access"),
		messaging: {
			allow_message_editing: realmSetting<boolean>(db.realm, "realm_allow_message_editing"),
			edit_limit_seconds: realmSetting<number | null>(db.realm, "realm_message_content_edit_limit_seconds"),
			delete_limit_seconds: realmSetting<number | null>(db.realm, "realm_message_content_delete_limit_seconds"),
			move_within_limit_seconds: realmSetting<number | null>(db.realm, "realm_move_messages_within_stream_limit_seconds"),
			move_between_limit_seconds: realmSetting<number | null>(db.realm, "realm_move_messages_between_streams_limit_seconds"),
			edit_history_visibility: realmSetting<string>(db.realm, "realm_message_edit_history_visibility_policy"),
		},
		topics_policy: realmSetting<string>(db.realm, "realm_topics_policy"),
		moderation_request_channel_id: realmSetting<number>(db.realm, "realm_moderation_request_channel_id"),
		new_stream_announcements_stream_id: realmSetting<number>(db.realm, "realm_new_stream_announcements_stream_id"),
		message_retention_days: realmSetting<number>(db.realm, "realm_message_retention_days"),
	};
}

/** A group's settings with defaults filled in (creator manages; everyone mentions; ...). */
export function groupSettings(g: UserGroupDoc, graph: GroupGraph): Record<GroupSettingName, GroupSettingValue> {
	const nobody = graph.system("role:nobody");
	const everyone = graph.system("role:everyone");
	const defaults: Record<GroupSettingName, GroupSettingValue> = {
		can_add_members_group: nobody,
		can_join_group: nobody,
		can_leave_group: everyone,
		can_manage_group: g.creator_id && !g.is_system_group ? { direct_members: [g.creator_id], direct_subgroups: [] } : nobody,
		can_mention_group: everyone,
		can_remove_members_group: nobody,
	};
	return { ...defaults, ...(g.settings ?? {}) };
}

export function groupView(g: UserGroupDoc, graph: GroupGraph, activeUsers: Set<number>): Record<string, unknown> {
	return {
		id: g._id,
		name: g.name,
		description: g.description,
		members: g.members.filter((u) => activeUsers.has(u)),
		direct_subgroup_ids: g.direct_subgroup_ids,
		creator_id: g.creator_id,
		date_created: g.date_created,
		is_system_group: g.is_system_group,
		deactivated: g.deactivated,
		...groupSettings(g, graph),
	};
}

export async function findGroup(db: UsersDb, id: number): Promise<UserGroupDoc> {
	const g = await db.UserGroup.findOne({ _id: id, realm_id: db.realm._id }).lean();
	if (!g) throw badRequest("Invalid user group");
	return g;
}

function checkName(name: string): string {
	const n = name.trim();
	if (!n) throw badRequest("User group name cannot be empty.");
	if (n.length > NAME_MAX) throw badRequest(`User group name cannot exceed ${NAME_MAX} characters.`);
	if (n.startsWith("role:")) throw badRequest("User group name cannot start with 'role:'.");
	return n;
}

async function checkNameFree(db: UsersDb, name: string, selfId?: number): Promise<void> {
	const clash = await db.UserGroup.findOne({ realm_id: db.realm._id, name }).lean();
	if (clash && clash._id !== selfId) throw badRequest(`User group '${name}' already exists.`);
}

function checkDescription(description: string): string {
	if (description.length > DESCRIPTION_MAX) throw badRequest(`description is too long (limit: ${DESCRIPTION_MAX} characters)`);
	return description;
}

async function checkUsers(db: UsersDb, ids: number[]): Promise<void> {
	const found = new Set((await db.User.find({ realm_id: db.realm._id, _id: { $in: ids }, is_active: true }, { _id: 1 }).lean()).map((u) => u._id));
	const bad = ids.find((id) => !found.has(id));
	if (bad !== undefined) throw badRequest(`Invalid user ID: ${bad}`);
}

function checkSubgroups(graph: GroupGraph, ids: number[]): void {
	const bad = ids.find((id) => !graph.has(id) || graph.get(id)!.deactivated);
	if (bad !== undefined) throw badRequest(`Invalid user group ID: ${bad}`);
}

/** Checks a group-setting value: its shape, and that its groups and users exist. */
export async function checkSettingValue(db: UsersDb, graph: GroupGraph, name: string, value: unknown): Promise<GroupSettingValue> {
	if (!isGroupSettingValue(value)) throw badRequest(`Invalid ${name}`);
	if (typeof value === "number") checkSubgroups(graph, [value]);
	else {
		checkSubgroups(graph, value.direct_subgroups);
		await checkUsers(db, value.direct_members);
	}
	return value;
}

/** Settings arrive as a bare value or, as for channels, as `{new, old}`; `old` must match. */
async function checkSettingChange(db: UsersDb, graph: GroupGraph, name: GroupSettingName, raw: unknown, current: GroupSettingValue): Promise<GroupSettingValue> {
	return checkSettingValue(db, graph, name, unwrapSettingChange(name, raw, current) ?? raw);
}

export function canManage(graph: GroupGraph, g: UserGroupDoc, actor: Identity): boolean {
	if (g.is_system_group) return false;
	if (graph.realmAllows("can_manage_all_groups", actor.user_id)) return true;
	return graph.allows(groupSettings(g, graph).can_manage_group, actor.user_id);
}

function requireManage(graph: GroupGraph, g: UserGroupDoc, actor: Identity): void {
	if (g.deactivated || !canManage(graph, g, actor)) throw insufficientPermission();
}

export interface NewGroup {
	name: string;
	description: string;
	members: number[];
	subgroups?: number[];
	settings: Partial<Record<GroupSettingName, unknown>>;
}

export async function createGroup(db: UsersDb, graph: GroupGraph, actor: Identity, input: NewGroup): Promise<number> {
	if (!graph.realmAllows("can_create_groups", actor.user_id)) throw insufficientPermission();
	const name = checkName(input.name);
	checkDescription(input.description);
	await checkNameFree(db, name);
	const members = [...new Set(input.members)];
	await checkUsers(db, members);
	const subgroups = [...new Set(input.subgroups ?? [])];
	checkSubgroups(graph, subgroups);
	const settings: Partial<Record<GroupSettingName, GroupSettingValue>> = {};
	for (const key of GROUP_SETTINGS) if (input.settings[key] !== undefined) settings[key] = await checkSettingValue(db, graph, key, input.settings[key]);
	const id = await insertGroup(db, {
		name,
		description: input.description,
		is_system_group: false,
		members,
		direct_subgroup_ids: subgroups,
		creator_id: actor.user_id,
		settings,
	});
	if (id === null) throw badRequest(`User group '${name}' already exists.`);
	return id;
}

export async function updateGroup(
	db: UsersDb,
	graph: GroupGraph,
	actor: Identity,
	g: UserGroupDoc,
	input: { name?: string; description?: string; settings: Partial<Record<GroupSettingName, unknown>> },
): Promise<void> {
	requireManage(graph, g, actor);
	const set: Record<string, unknown> = {};
	if (input.name !== undefined) {
		const name = checkName(input.name);
		await checkNameFree(db, name, g._id);
		set.name = name;
	}
	if (input.description !== undefined) set.description = checkDescription(input.description);
	const current = groupSettings(g, graph);
	for (const key of GROUP_SETTINGS) {
		if (input.settings[key] !== undefined) set[`settings.${key}`] = await checkSettingChange(db, graph, key, input.settings[key], current[key]);
	}
	if (!Object.keys(set).length) throw badRequest("No new data supplied");
	try {
		await db.UserGroup.updateOne({ _id: g._id }, { $set: set });
	} catch (err) {
		if (isDuplicateKey(err)) throw badRequest(`User group '${String(set.name)}' already exists.`);
		throw err;
	}
}

export async function updateMembers(db: UsersDb, graph: GroupGraph, actor: Identity, g: UserGroupDoc, add: number[], remove: number[]): Promise<void> {
	if (g.is_system_group || g.deactivated) throw insufficientPermission();
	const settings = groupSettings(g, graph);
	const manage = canManage(graph, g, actor);
	const self = (ids: number[]) => ids.length === 1 && ids[0] === actor.user_id;
	if (add.length && !(manage || graph.allows(settings.can_add_members_group, actor.user_id) || (self(add) && graph.allows(settings.can_join_group, actor.user_id)))) {
		throw insufficientPermission();
	}
	if (remove.length && !(manage || graph.allows(settings.can_remove_members_group, actor.user_id) || (self(remove) && graph.allows(settings.can_leave_group, actor.user_id)))) {
		throw insufficientPermission();
	}
	const current = new Set(g.members);
	await checkUsers(db, add);
	for (const id of add) if (current.has(id)) throw badRequest(`User ${id} is already a member of this group`);
	for (const id of remove) if (!current.has(id)) throw badRequest(`There is no member '${id}' in this user group`);
	const next = [...g.members.filter((u) => !remove.includes(u)), ...new Set(add)];
	await db.UserGroup.updateOne({ _id: g._id }, { $set: { members: next } });
}

export async function updateSubgroups(db: UsersDb, graph: GroupGraph, actor: Identity, g: UserGroupDoc, add: number[], remove: number[]): Promise<void> {
	requireManage(graph, g, actor);
	checkSubgroups(graph, add);
	const current = new Set(g.direct_subgroup_ids);
	for (const id of add) {
		if (current.has(id)) throw badRequest(`User group ${id} is already a subgroup of this group.`);
		// g must not be reachable from the new subgroup, or the graph would have a cycle.
		if (id === g._id || graph.descendants(id).has(g._id)) throw badRequest("User group cannot be a subgroup of itself or of its subgroups.");
	}
	for (const id of remove) if (!current.has(id)) throw badRequest(`User group ${id} is not a subgroup of this group.`);
	const next = [...g.direct_subgroup_ids.filter((s) => !remove.includes(s)), ...new Set(add)];
	await db.UserGroup.updateOne({ _id: g._id }, { $set: { direct_subgroup_ids: next } });
}

export async function deactivateGroup(db: UsersDb, graph: GroupGraph, actor: Identity, g: UserGroupDoc): Promise<void> {
	requireManage(graph, g, actor);
	const usedBy = await db.UserGroup.findOne({ realm_id: db.realm._id, deactivated: false, direct_subgroup_ids: g._id }).lean();
	if (usedBy) throw badRequest("Cannot deactivate user group in use.");
	await db.UserGroup.updateOne({ _id: g._id }, { $set: { deactivated: true } });
}

/** A group's members, sorted: direct ones (still members by the graph) or all, through subgroups. */
export function groupMembers(graph: GroupGraph, groupId: number, directOnly: boolean): number[] {
	const direct = graph.get(groupId)!.members.filter((u) => graph.members(groupId).has(u));
	const members = directOnly ? direct : [...graph.members(groupId)];
	return members.sort((a, b) => a - b);
}

/** A group's subgroups, sorted: direct ones or all, through subgroups. */
export function groupSubgroups(graph: GroupGraph, id: number, directOnly: boolean): number[] {
	const all = [...graph.descendants(id)].filter((g) => g !== id);
	return (directOnly ? graph.get(id)!.subgroups : all).sort((a, b) => a - b);
}

export function isGroupMember(graph: GroupGraph, g: number, u: number, directOnly: boolean): boolean {
	return directOnly ? graph.get(g)!.members.includes(u) && graph.members(g).has(u) : graph.members(g).has(u);
}
