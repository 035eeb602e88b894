// User groups: Zulip's named groups (system and user-made) with their members, subgroups and
// group settings, and the anonymous groups (zerver_usergroup rows with no name) that group
// settings point to, which this server stores inline as {direct_members, direct_subgroups}.
import type { GroupSettingValue } from "../../shared/group-settings";
import { GROUP_SETTINGS, type UserGroupDoc } from "../../services/users/groups/user-group-model";
import { SYSTEM_GROUPS } from "../../services/users/groups/system-groups";
import { insertAll, memberOrSkip, seconds, table, type ImportContext } from "./context";
import type { Rec } from "../../shared/zulip-format/records";

export interface GroupValues {
	/** The value of a group setting naming Zulip group `id`. */
	value(id: number, rec: Rec, field: string): GroupSettingValue;
	/** The ID of a system group, by name. */
	system(name: string): number;
}

export async function importGroups(ctx: ImportContext): Promise<GroupValues> {
	const all = table(ctx, "zerver_usergroup");
	const named = table(ctx, "zerver_namedusergroup");
	const memberships = table(ctx, "zerver_usergroupmembership");
	const nesting = table(ctx, "zerver_groupgroupmembership");
	ctx.progress.start("groups", all.length + memberships.length);

	const known = new Set(all.map((r) => r.int("id")));
	const members = new Map<number, number[]>();
	const subgroups = new Map<number, number[]>();
	const push = (map: Map<number, number[]>, k: number, v: number) => (map.get(k) ?? map.set(k, []).get(k)!).push(v);
	for (const r of memberships) {
		const group = r.int("user_group");
		if (!known.has(group)) r.fail(`"user_group" names group ${group}, which the export does not hold`);
		const user = memberOrSkip(ctx, r, "user_profile");
		if (user !== undefined) push(members, group, user);
	}
	for (const r of nesting) {
		const sup = r.int("supergroup");
		const sub = r.int("subgroup");
		if (!known.has(sup) || !known.has(sub)) r.fail(`names a group the export does not hold`);
		push(subgroups, sup, sub);
	}
	const namedIds = new Set(named.map((r) => r.int("id")));
	for (const id of namedIds) ctx.ids.groups.set(id, id);
	const systemIds = new Map(named.filter((r) => r.bool("is_system_group")).map((r) => [r.str("name"), r.int("id")]));
	const values: GroupValues = {
		system: (name) => systemIds.get(name)!,
		value(id, rec, field) {
			if (namedIds.has(id)) return id;
			if (!known.has(id)) rec.fail(`"${field}" names group ${id}, which the export does not hold`);
			return { direct_members: members.get(id) ?? [], direct_subgroups: subgroups.get(id) ?? [] };
		},
	};

	const systemNames = new Set<string>(SYSTEM_GROUPS);
	const docs: UserGroupDoc[] = named.map((r) => {
		const id = r.int("id");
		const isSystem = r.bool("is_system_group");
		if (isSystem && !systemNames.has(r.str("name"))) r.fail(`the system group "${r.str("name")}" is not one this server has`);
		const settings = {} as UserGroupDoc["settings"];
		for (const s of GROUP_SETTINGS) if (r.raw[s] != null) settings[s] = values.value(r.int(s), r, s);
		return {
			_id: id,
			realm_id: ctx.realmId,
			name: r.str("name"),
			description: r.optStr("description") ?? "",
			is_system_group: isSystem,
			// System groups' members follow roles here (system-groups.ts): Zulip's rows for them are derived.
			members: isSystem ? [] : (members.get(id) ?? []),
			direct_subgroup_ids: subgroups.get(id) ?? [],
			deactivated: r.optBool("deactivated") ?? false,
			creator_id: ctx.ids.users.opt(r.optInt("creator"), r, "creator"),
			date_created: r.optNum("date_created") === null ? null : seconds(r.num("date_created")),
			settings,
		};
	});
	const missing = SYSTEM_GROUPS.filter((n) => !docs.some((d) => d.is_system_group && d.name === n));
	if (missing.length) throw new Error(`realm.json, zerver_namedusergroup: the system groups ${missing.join(", ")} are missing`);
	await insertAll(ctx.target.m.UserGroup, docs);
	await ctx.target.raiseCounter("users", "user_group", Math.max(0, ...all.map((r) => r.int("id"))));
	ctx.progress.add(all.length + memberships.length);
	ctx.progress.finish();
	return values;
}
