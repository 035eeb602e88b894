// User groups. System groups (role:owners, ...) are rows too, but their members are derived from
// users' roles (system-groups.ts), so a role change needs no membership update.
// Queries: all groups of a realm -> { realm_id, name } (prefix); by name -> { realm_id, name } unique.
import { Connection, Schema } from "mongoose";
import type { GroupSettingValue } from "../../../shared/group-settings";

export const GROUP_SETTINGS = [
	"can_add_members_group",
	"can_join_group",
	"can_leave_group",
	"can_manage_group",
	"can_mention_group",
	"can_remove_members_group",
] as const;

export type GroupSettingName = (typeof GROUP_SETTINGS)[number];

export interface UserGroupDoc {
	_id: number;
	realm_id: number;
	name: string;
	description: string;
	is_system_group: boolean;
	/** Direct members (user IDs); empty for system groups, whose members follow roles. */
	members: number[];
	direct_subgroup_ids: number[];
	deactivated: boolean;
	creator_id: number | null;
	date_created: number | null;
	settings: Record<GroupSettingName, GroupSettingValue>;
}

const schema = new Schema<UserGroupDoc>(
	{
		_id: Number,
		realm_id: { type: Number, required: true },
		name: { type: String, required: true },
		description: { type: String, default: "" },
		is_system_group: { type: Boolean, default: false },
		members: { type: [Number], default: [] },
		direct_subgroup_ids: { type: [Number], default: [] },
		deactivated: { type: Boolean, default: false },
		creator_id: { type: Number, default: null },
		date_created: { type: Number, default: null },
		settings: { type: Schema.Types.Mixed, default: {} },
	},
	{ versionKey: false, minimize: false },
);
schema.index({ realm_id: 1, name: 1 }, { unique: true });
// Every group of the organization, in ID order (the group graph each node caches).
schema.index({ realm_id: 1, _id: 1 });

export const userGroupModel = (conn: Connection) => conn.model<UserGroupDoc>("UserGroup", schema, "user_groups");
