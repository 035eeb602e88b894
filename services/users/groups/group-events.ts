// Zulip's `user_group` events for one group's change, from its view before and after
// (services/events/realm-changes.ts delivers them to every active user).
import type { GroupGraph } from "../../../shared/group-settings";
import type { GroupsChanged } from "../../../shared/org-events";
import { activeUserIds, type UsersDb } from "../db";
import { groupView, loadGroups } from "./user-group-rules";

type View = Record<string, unknown>;

/** Fields that never change after creation, or that have their own ops. */
const NOT_DATA = new Set(["id", "members", "direct_subgroup_ids", "creator_id", "date_created", "is_system_group"]);

/** A group as GET /user_groups shows it (undefined if there is none). */
export async function groupSnapshot(db: UsersDb, graph: GroupGraph, groupId: number): Promise<View | undefined> {
	const [groups, active] = await Promise.all([loadGroups(db), activeUserIds(db)]);
	const g = groups.find((x) => x._id === groupId);
	return g ? groupView(g, graph, new Set(active)) : undefined;
}

/** The events turning `before` (none: a new group) into the group as it is now, and who gets them. */
export async function groupChange(db: UsersDb, graph: GroupGraph, groupId: number, before: View | undefined): Promise<Partial<GroupsChanged>> {
	const [after, user_ids] = await Promise.all([groupSnapshot(db, graph, groupId), activeUserIds(db)]);
	if (!after) return {};
	const group_id = groupId;
	if (!before) return { events: [{ op: "add", group: after }], user_ids };
	const events: View[] = [];
	const data: View = {};
	for (const [key, value] of Object.entries(after)) {
		if (!NOT_DATA.has(key) && JSON.stringify(value) !== JSON.stringify(before[key])) data[key] = value;
	}
	if (Object.keys(data).length) events.push({ op: "update", group_id, data });
	const diff = (key: string) => {
		const was = new Set(before[key] as number[]);
		const now = new Set(after[key] as number[]);
		return { added: [...now].filter((x) => !was.has(x)), removed: [...was].filter((x) => !now.has(x)) };
	};
	const members = diff("members");
	if (members.added.length) events.push({ op: "add_members", group_id, user_ids: members.added });
	if (members.removed.length) events.push({ op: "remove_members", group_id, user_ids: members.removed });
	const subgroups = diff("direct_subgroup_ids");
	if (subgroups.added.length) events.push({ op: "add_subgroups", group_id, direct_subgroup_ids: subgroups.added });
	if (subgroups.removed.length) events.push({ op: "remove_subgroups", group_id, direct_subgroup_ids: subgroups.removed });
	return { events, user_ids };
}
