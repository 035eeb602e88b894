// What a channel's name, description and settings may be, and their defaults.
import { badRequest, insufficientPermission } from "../../shared/errors";
import { renderMarkdown } from "../../shared/markdown/render";
import { isGroupSettingValue, type GroupGraph, type GroupSettingValue } from "../../shared/group-settings";
import { INT32_MAX } from "../../shared/params";
import { LIMITS } from "../../shared/version";
import { CHANNEL_GROUP_SETTINGS, TOPICS_POLICIES, type ChannelGroupSetting } from "./models/channel";

export function checkChannelName(raw: string): string {
	const name = raw.trim();
	if (!name) throw badRequest("Channel name can't be empty.");
	if (name.length > LIMITS.max_stream_name_length) throw badRequest(`Channel name too long (limit: ${LIMITS.max_stream_name_length} characters).`);
	const bad = [...name].findIndex((ch) => /[\p{Cc}\p{Cs}\uFFFE\uFFFF]/u.test(ch));
	if (bad >= 0) throw badRequest(`Invalid character in channel name, at position ${bad + 1}.`);
	return name;
}

export function checkDescription(raw: string): string {
	const d = raw.replace(/\r\n?/g, "\n").replace(/\n+/g, " ").trim();
	if (d.length > LIMITS.max_stream_description_length) {
		throw badRequest(`description is too long (limit: ${LIMITS.max_stream_description_length} characters)`);
	}
	return d;
}

/** Descriptions are Markdown, rendered like messages (without mentions). */
export function renderDescription(d: string): string {
	return renderMarkdown(d);
}

/** `realm_default` (null), `unlimited` (-1), or a positive number of days. */
export function checkRetention(raw: unknown): number | null {
	if (raw === "realm_default") return null;
	if (raw === "unlimited") return -1;
	const n = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : raw;
	if (typeof n === "number" && Number.isInteger(n) && n > 0 && n <= INT32_MAX) return n;
	throw badRequest("Bad value for 'message_retention_days'");
}

export function checkTopicsPolicy(raw: string): (typeof TOPICS_POLICIES)[number] {
	if (!(TOPICS_POLICIES as readonly string[]).includes(raw)) throw badRequest("Invalid topics_policy");
	return raw as (typeof TOPICS_POLICIES)[number];
}

/** Defaults for a new channel's permissions; its creator administers it. */
export function defaultSettings(graph: GroupGraph, creatorId: number): Record<ChannelGroupSetting, GroupSettingValue> {
	return {
		can_add_subscribers_group: graph.system("role:nobody"),
		can_remove_subscribers_group: graph.system("role:administrators"),
		can_administer_channel_group: { direct_members: [creatorId], direct_subgroups: [] },
		can_delete_any_message_group: graph.system("role:nobody"),
		can_delete_own_message_group: graph.system("role:everyone"),
		can_move_messages_out_of_channel_group: graph.system("role:nobody"),
		can_move_messages_within_channel_group: graph.system("role:nobody"),
		can_send_message_group: graph.system("role:everyone"),
	};
}

/** Checks a group-setting value: its shape, that its groups exist and its users are active. */
export function checkGroupSetting(graph: GroupGraph, name: string, value: unknown): GroupSettingValue {
	if (!isGroupSettingValue(value)) throw badRequest(`Invalid ${name}`);
	const groups = typeof value === "number" ? [value] : value.direct_subgroups;
	const badGroup = groups.find((g) => !graph.has(g) || graph.get(g)!.deactivated);
	if (badGroup !== undefined) throw badRequest(`Invalid user group ID: ${badGroup}`);
	if (typeof value !== "number") {
		const badUser = value.direct_members.find((u) => !graph.isActive(u));
		if (badUser !== undefined) throw badRequest(`Invalid user ID: ${badUser}`);
	}
	return value;
}

export function pickGroupSettings(graph: GroupGraph, params: Record<string, unknown>): Partial<Record<ChannelGroupSetting, GroupSettingValue>> {
	const out: Partial<Record<ChannelGroupSetting, GroupSettingValue>> = {};
	for (const key of CHANNEL_GROUP_SETTINGS) if (params[key] !== undefined) out[key] = checkGroupSetting(graph, key, params[key]);
	return out;
}

/**
 * Making a channel web-public needs the server setting, the organization's spectator access,
 * and the user in can_create_web_public_channel_group.
 */
export function checkWebPublicAllowed(serverEnabled: boolean, graph: GroupGraph, userId: number): void {
	if (!serverEnabled || !graph.spectatorAccess) throw badRequest("Web-public channels are not enabled.");
	if (!graph.realmAllows("can_create_web_public_channel_group", userId)) throw insufficientPermission();
}
