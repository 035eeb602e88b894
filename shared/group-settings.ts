// Group-setting values and the one evaluator every permission check uses.
//
// A group-setting value names who holds a permission: either a user group's ID, or an anonymous
// group `{direct_members, direct_subgroups}`. Membership is recursive through subgroups, and
// deactivated users never hold a permission (as Zulip does from feature level 303).
//
// Each node keeps a snapshot of the organization's group graph (GroupGraphCache), loaded from
// the users service and dropped when it announces a change to groups or users.

import { badRequest } from "./errors";

export type AnonymousGroup = { direct_members: number[]; direct_subgroups: number[] };
export type GroupSettingValue = number | AnonymousGroup;

export interface GraphGroup {
	id: number;
	name: string;
	members: number[];
	subgroups: number[];
	deactivated: boolean;
}

/** What the users service sends: every group, which users are active, the realm's group settings. */
export interface GroupGraphData {
	groups: GraphGroup[];
	active_user_ids: number[];
	/** Organization-level permissions (can_create_public_channel_group, ...). */
	realm: Record<string, GroupSettingValue>;
	/** The organization's name for the empty topic (realm_empty_topic_display_name). */
	empty_topic_display_name?: string;
	/** The organization setting enable_spectator_access. */
	spectator_access?: boolean;
	/** The organization's message editing settings. */
	messaging?: MessagingSettings;
	/** The organization's topics_policy, which channels with "inherit" follow. */
	topics_policy?: string;
	/** The channel message reports go to (-1: reporting is off). */
	moderation_request_channel_id?: number;
	/** The channel new channels are announced in (-1: none). */
	new_stream_announcements_stream_id?: number;
	/** The organization's message retention, in days (-1: forever). */
	message_retention_days?: number;
}

export interface MessagingSettings {
	allow_message_editing: boolean;
	/** Seconds after sending within which content may be edited (null: no limit). */
	edit_limit_seconds: number | null;
	delete_limit_seconds: number | null;
	move_within_limit_seconds: number | null;
	move_between_limit_seconds: number | null;
	/** Who may see edit history: "all", "moves" or "none". */
	edit_history_visibility: string;
}

const DEFAULT_MESSAGING: MessagingSettings = {
	allow_message_editing: true,
	edit_limit_seconds: 600,
	delete_limit_seconds: 600,
	move_within_limit_seconds: 604800,
	move_between_limit_seconds: 604800,
	edit_history_visibility: "all",
};

export class GroupGraph {
	private groups: Map<number, GraphGroup>;
	private active: Set<number>;
	private memo = new Map<number, Set<number>>();
	readonly realm: Record<string, GroupSettingValue>;
	readonly emptyTopicDisplayName: string;
	readonly spectatorAccess: boolean;
	readonly messaging: MessagingSettings;
	readonly topicsPolicy: string;
	readonly moderationChannelId: number;
	readonly newChannelAnnouncementsId: number;
	readonly messageRetentionDays: number;

	constructor(data: GroupGraphData) {
		this.groups = new Map(data.groups.map((g) => [g.id, g]));
		this.active = new Set(data.active_user_ids);
		this.realm = data.realm ?? {};
		this.emptyTopicDisplayName = data.empty_topic_display_name ?? "general chat";
		this.spectatorAccess = data.spectator_access ?? false;
		this.messaging = data.messaging ?? DEFAULT_MESSAGING;
		this.topicsPolicy = data.topics_policy ?? "allow_empty_topic";
		this.moderationChannelId = data.moderation_request_channel_id ?? -1;
		this.newChannelAnnouncementsId = data.new_stream_announcements_stream_id ?? -1;
		this.messageRetentionDays = data.message_retention_days ?? -1;
	}

	isActive(userId: number): boolean {
		return this.active.has(userId);
	}

	/** The organization's active users, in ID order: who hears of an organization-wide change. */
	activeUserIds(): number[] {
		return [...this.active].sort((a, b) => a - b);
	}

	/** Whether the user holds an organization-level permission. */
	realmAllows(setting: string, userId: number): boolean {
		const value = this.realm[setting];
		return value !== undefined && this.allows(value, userId);
	}

	/** The ID of a system group, e.g. "role:everyone". */
	system(name: string): number {
		const g = this.byName(name);
		if (!g) throw new Error(`system group ${name} is missing`);
		return g.id;
	}

	has(groupId: number): boolean {
		return this.groups.has(groupId);
	}

	get(groupId: number): GraphGroup | undefined {
		return this.groups.get(groupId);
	}

	byName(name: string): GraphGroup | undefined {
		for (const g of this.groups.values()) if (g.name === name) return g;
		return undefined;
	}

	/** Every active user in the group, directly or through subgroups (cycles are harmless). */
	members(groupId: number): Set<number> {
		const cached = this.memo.get(groupId);
		if (cached) return cached;
		const out = new Set<number>();
		for (const id of this.descendants(groupId)) for (const u of this.groups.get(id)?.members ?? []) if (this.active.has(u)) out.add(u);
		this.memo.set(groupId, out);
		return out;
	}

	/** Every group reachable from `groupId` through subgroups, itself included. */
	descendants(groupId: number): Set<number> {
		const seen = new Set<number>();
		const stack = [groupId];
		while (stack.length) {
			const id = stack.pop()!;
			if (seen.has(id)) continue;
			seen.add(id);
			stack.push(...(this.groups.get(id)?.subgroups ?? []));
		}
		return seen;
	}

	settingMembers(value: GroupSettingValue): Set<number> {
		if (typeof value === "number") return this.members(value);
		const out = new Set<number>();
		for (const u of value.direct_members) if (this.active.has(u)) out.add(u);
		for (const g of value.direct_subgroups) for (const u of this.members(g)) out.add(u);
		return out;
	}

	/** The question every permission check asks. */
	allows(value: GroupSettingValue, userId: number): boolean {
		if (typeof value === "number") return this.members(value).has(userId);
		if (value.direct_members.includes(userId) && this.active.has(userId)) return true;
		return value.direct_subgroups.some((g) => this.members(g).has(userId));
	}
}

/** A per-node cache of the group graph; `invalidate` on `users.groupsChanged` and `users.changed`. */
export class GroupGraphCache {
	private current: Promise<GroupGraph> | undefined;

	constructor(private load: () => Promise<GroupGraphData>) {}

	get(): Promise<GroupGraph> {
		if (!this.current) {
			const p = this.load().then((d) => new GroupGraph(d));
			// A failed load is not cached.
			p.catch(() => {
				if (this.current === p) this.current = undefined;
			});
			this.current = p;
		}
		return this.current;
	}

	invalidate(): void {
		this.current = undefined;
	}
}

/** The events that drop a service's group graph cache (`cache()`: the service's, once it started). */
export function groupGraphEvents(cache: () => GroupGraphCache | undefined) {
	return {
		"users.groupsChanged"() {
			cache()?.invalidate();
		},
		"users.changed"() {
			cache()?.invalidate();
		},
	};
}

/** Checks the shape of a group-setting value and that every group and user in it exists. */
export function isGroupSettingValue(v: unknown): v is GroupSettingValue {
	if (Number.isInteger(v)) return true;
	if (!v || typeof v !== "object" || Array.isArray(v)) return false;
	const o = v as Record<string, unknown>;
	const ints = (a: unknown) => Array.isArray(a) && a.every((x) => Number.isInteger(x));
	return Object.keys(o).every((k) => k === "direct_members" || k === "direct_subgroups") && ints(o.direct_members) && ints(o.direct_subgroups);
}

/** Whether two group-setting values name the same holders (member and subgroup order aside). */
export function sameGroupSetting(a: unknown, b: unknown): boolean {
	const norm = (v: unknown) => {
		if (!v || typeof v !== "object" || Array.isArray(v)) return v;
		const o = v as Partial<AnonymousGroup>;
		const sorted = (xs?: number[]) => [...(xs ?? [])].sort((x, y) => x - y);
		return { direct_members: sorted(o.direct_members), direct_subgroups: sorted(o.direct_subgroups) };
	};
	return JSON.stringify(norm(a)) === JSON.stringify(norm(b));
}

/**
 * A setting change sent as `{new, old}`: returns `new` (still to be checked) after making sure
 * `old`, when given, is the current value; undefined when `raw` is not of that form.
 */
export function unwrapSettingChange(name: string, raw: unknown, current: GroupSettingValue): unknown {
	if (!raw || typeof raw !== "object" || Array.isArray(raw) || !("new" in raw)) return undefined;
	const { new: next, old } = raw as { new: unknown; old?: unknown };
	if (old !== undefined && !sameGroupSetting(old, current)) {
		throw badRequest(`'old' value for ${name} does not match expected value.`);
	}
	return next;
}
