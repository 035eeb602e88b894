// GET and POST /user_groups, PATCH /user_groups/{user_group_id} (with its members and
// subgroups), deactivating a group, and the membership queries. Each change is announced as
// users.groupsChanged with its user_group events. The rules live in user-group-rules.ts.
import { requireUser } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import { GROUP_SETTINGS, type GroupSettingName } from "./user-group-model";
import { createGroup, deactivateGroup, findGroup, groupMembers, groupSubgroups, isGroupMember, updateGroup, updateMembers, updateSubgroups } from "./user-group-rules";
import type { Ctx, ServiceDeps } from "../deps";

const groupSettingParams = Object.fromEntries(GROUP_SETTINGS.map((k) => [k, p.json({ optional: true })]));

type GroupSettingsInput = Partial<Record<GroupSettingName, unknown>>;

const pickSettings = (params: Record<string, unknown>): GroupSettingsInput =>
	Object.fromEntries(GROUP_SETTINGS.filter((k) => params[k] !== undefined).map((k) => [k, params[k]]));

export function userGroupActions({ db, graphs, findUser, groupsView, groupsChanged, groupBefore }: ServiceDeps) {
	return {
		listGroups: {
			params: params({ include_deactivated_groups: p.bool({ optional: true }) }),
			async handler(ctx: Ctx<{ include_deactivated_groups?: boolean }>) {
				requireUser(ctx);
				return { user_groups: await groupsView(ctx.params.include_deactivated_groups ?? false) };
			},
		},

		createGroup: {
			params: params({
				name: p.string(),
				description: p.string(),
				members: p.intList(),
				subgroups: p.intList({ optional: true }),
				...groupSettingParams,
			}),
			async handler(ctx: Ctx<{ name: string; description: string; members: number[]; subgroups?: number[] } & GroupSettingsInput>) {
				const actor = requireUser(ctx);
				const id = await createGroup(db, await graphs.get(), actor, { ...ctx.params, settings: pickSettings(ctx.params) });
				await groupsChanged(ctx, id);
				return { group_id: id };
			},
		},

		updateGroup: {
			params: params({ user_group_id: p.int(), name: p.string({ optional: true }), description: p.string({ optional: true }), ...groupSettingParams }),
			async handler(ctx: Ctx<{ user_group_id: number; name?: string; description?: string } & GroupSettingsInput>) {
				const actor = requireUser(ctx);
				const group = await findGroup(db, ctx.params.user_group_id);
				const before = await groupBefore(group._id);
				await updateGroup(db, await graphs.get(), actor, group, { ...ctx.params, settings: pickSettings(ctx.params) });
				await groupsChanged(ctx, group._id, before);
				return {};
			},
		},

		updateGroupMembers: {
			params: params({
				user_group_id: p.int(),
				add: p.intList({ optional: true }),
				delete: p.intList({ optional: true }),
				add_subgroups: p.intList({ optional: true }),
				delete_subgroups: p.intList({ optional: true }),
			}),
			async handler(ctx: Ctx<{ user_group_id: number; add?: number[]; delete?: number[]; add_subgroups?: number[]; delete_subgroups?: number[] }>) {
				const actor = requireUser(ctx);
				const q = ctx.params;
				const group = await findGroup(db, q.user_group_id);
				const graph = await graphs.get();
				const before = await groupBefore(group._id);
				if (q.add?.length || q.delete?.length) await updateMembers(db, graph, actor, group, q.add ?? [], q.delete ?? []);
				if (q.add_subgroups?.length || q.delete_subgroups?.length) {
					await updateSubgroups(db, graph, actor, await findGroup(db, q.user_group_id), q.add_subgroups ?? [], q.delete_subgroups ?? []);
				}
				await groupsChanged(ctx, group._id, before);
				return {};
			},
		},

		updateGroupSubgroups: {
			params: params({ user_group_id: p.int(), add: p.intList({ optional: true }), delete: p.intList({ optional: true }) }),
			async handler(ctx: Ctx<{ user_group_id: number; add?: number[]; delete?: number[] }>) {
				const actor = requireUser(ctx);
				const group = await findGroup(db, ctx.params.user_group_id);
				const before = await groupBefore(group._id);
				await updateSubgroups(db, await graphs.get(), actor, group, ctx.params.add ?? [], ctx.params.delete ?? []);
				await groupsChanged(ctx, group._id, before);
				return {};
			},
		},

		deactivateGroup: {
			params: params({ user_group_id: p.int() }),
			async handler(ctx: Ctx<{ user_group_id: number }>) {
				const actor = requireUser(ctx);
				const group = await findGroup(db, ctx.params.user_group_id);
				const before = await groupBefore(group._id);
				await deactivateGroup(db, await graphs.get(), actor, group);
				await groupsChanged(ctx, group._id, before);
				return {};
			},
		},

		groupMembers: {
			params: params({ user_group_id: p.int(), direct_member_only: p.bool({ optional: true }) }),
			async handler(ctx: Ctx<{ user_group_id: number; direct_member_only?: boolean }>) {
				requireUser(ctx);
				await findGroup(db, ctx.params.user_group_id);
				const graph = await graphs.get();
				return { members: groupMembers(graph, ctx.params.user_group_id, !!ctx.params.direct_member_only) };
			},
		},

		groupSubgroups: {
			params: params({ user_group_id: p.int(), direct_subgroup_only: p.bool({ optional: true }) }),
			async handler(ctx: Ctx<{ user_group_id: number; direct_subgroup_only?: boolean }>) {
				requireUser(ctx);
				await findGroup(db, ctx.params.user_group_id);
				const graph = await graphs.get();
				return { subgroups: groupSubgroups(graph, ctx.params.user_group_id, !!ctx.params.direct_subgroup_only) };
			},
		},

		isGroupMember: {
			params: params({ user_group_id: p.int(), user_id: p.int(), direct_member_only: p.bool({ optional: true }) }),
			async handler(ctx: Ctx<{ user_group_id: number; user_id: number; direct_member_only?: boolean }>) {
				requireUser(ctx);
				await findGroup(db, ctx.params.user_group_id);
				await findUser(ctx.params.user_id);
				const graph = await graphs.get();
				return { is_user_group_member: isGroupMember(graph, ctx.params.user_group_id, ctx.params.user_id, !!ctx.params.direct_member_only) };
			},
		},
	};
}
