// zerver_usergroup, zerver_namedusergroup, zerver_usergroupmembership and
// zerver_groupgroupmembership: the organization's user groups (system groups included, as Zulip's
// export holds them, members as their roles make them), and the anonymous groups Zulip stores a
// group setting of several members and groups in: each such setting here becomes a group row of
// its own, numbered after the named groups. `settingGroup` turns a setting's value into the group
// ID Zulip's tables hold (zerver_realm's can_*_group fields). A full export adds each named
// group's own fields (`details`: description, creator, group settings).
import type { GroupGraphData, GroupSettingValue } from "../group-settings";
import type { GroupDetails } from "./source";
import type { Row, Tables } from "./tables";

export interface GroupTables {
	tables: Tables;
	settingGroup(value: GroupSettingValue): number;
}

export function groupTables(realmId: number, graph: GroupGraphData, details = new Map<number, GroupDetails>()): GroupTables {
	const zerver_usergroup: Row[] = [];
	const zerver_namedusergroup: Row[] = [];
	const zerver_usergroupmembership: Row[] = [];
	const zerver_groupgroupmembership: Row[] = [];
	const addMembers = (groupId: number, members: number[], subgroups: number[]) => {
		for (const user of members) zerver_usergroupmembership.push({ id: zerver_usergroupmembership.length + 1, user_group: groupId, user_profile: user });
		for (const sub of subgroups) zerver_groupgroupmembership.push({ id: zerver_groupgroupmembership.length + 1, supergroup: groupId, subgroup: sub });
	};
	for (const g of [...graph.groups].sort((a, b) => a.id - b.id)) {
		zerver_usergroup.push({ id: g.id, realm: realmId });
		zerver_namedusergroup.push({
			usergroup_ptr: g.id,
			id: g.id,
			name: g.name,
			description: details.get(g.id)?.description ?? "",
			date_created: details.get(g.id)?.date_created ?? null,
			creator: details.get(g.id)?.creator_id ?? null,
			is_system_group: g.name.startsWith("role:"),
			realm_for_sharding: realmId,
			deactivated: g.deactivated,
		});
		addMembers(g.id, g.members, g.subgroups);
	}
	let next = Math.max(0, ...graph.groups.map((g) => g.id)) + 1;
	const settingGroup = (value: GroupSettingValue) => {
		if (typeof value === "number") return value;
		const id = next++;
		zerver_usergroup.push({ id, realm: realmId });
		addMembers(id, value.direct_members, value.direct_subgroups);
		return id;
	};
	for (const row of zerver_namedusergroup) {
		for (const [key, value] of Object.entries(details.get(row.id as number)?.settings ?? {})) row[key] = settingGroup(value);
	}
	return { tables: { zerver_usergroup, zerver_namedusergroup, zerver_usergroupmembership, zerver_groupgroupmembership }, settingGroup };
}
