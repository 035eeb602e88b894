// The deprecated policy values POST /register derives from organization group settings, by
// Zulip's rules (get_corresponding_policy_value_for_group_setting).
import { GroupGraph, type GroupSettingValue } from "../../shared/group-settings";
import { legacyPolicies } from "../../services/users/realm/realm-settings";

const NAMES = ["role:nobody", "role:owners", "role:administrators", "role:moderators", "role:fullmembers", "role:members", "role:everyone"];
const groups = [...NAMES.map((name, i) => ({ id: i + 1, name, members: [], subgroups: [], deactivated: false })), { id: 20, name: "helpers", members: [5], subgroups: [], deactivated: false }];
const id = (name: string) => NAMES.indexOf(name) + 1;

function policiesFor(setting: string, value: GroupSettingValue) {
	return legacyPolicies(new GroupGraph({ groups, active_user_ids: [5], realm: { [setting]: value } }));
}

test("a system group gives the policy that names it", () => {
	expect(policiesFor("can_mention_many_users_group", id("role:everyone")).realm_wildcard_mention_policy).toBe(1);
	expect(policiesFor("can_mention_many_users_group", id("role:members")).realm_wildcard_mention_policy).toBe(2);
	expect(policiesFor("can_mention_many_users_group", id("role:fullmembers")).realm_wildcard_mention_policy).toBe(3);
	expect(policiesFor("can_mention_many_users_group", id("role:administrators")).realm_wildcard_mention_policy).toBe(5);
	expect(policiesFor("can_mention_many_users_group", id("role:nobody")).realm_wildcard_mention_policy).toBe(6);
	expect(policiesFor("can_mention_many_users_group", id("role:moderators")).realm_wildcard_mention_policy).toBe(7);
	expect(policiesFor("can_create_public_channel_group", id("role:members")).realm_create_public_stream_policy).toBe(1);
	expect(policiesFor("can_create_private_channel_group", id("role:administrators")).realm_create_private_stream_policy).toBe(2);
	expect(policiesFor("can_create_public_channel_group", id("role:fullmembers")).realm_create_public_stream_policy).toBe(3);
	expect(policiesFor("can_create_public_channel_group", id("role:moderators")).realm_create_public_stream_policy).toBe(4);
	expect(policiesFor("can_create_web_public_channel_group", id("role:owners")).realm_create_web_public_stream_policy).toBe(7);
	expect(policiesFor("can_create_web_public_channel_group", id("role:nobody")).realm_create_web_public_stream_policy).toBe(6);
});

test("any other group (one the old policies had no value for, a user group, an anonymous group) gives Zulip's fallback", () => {
	const anonymous = { direct_members: [5], direct_subgroups: [] };
	for (const value of [id("role:owners"), 20, anonymous]) expect(policiesFor("can_mention_many_users_group", value).realm_wildcard_mention_policy).toBe(1);
	for (const value of [id("role:everyone"), id("role:owners"), 20, anonymous]) expect(policiesFor("can_create_public_channel_group", value).realm_create_public_stream_policy).toBe(1);
	for (const value of [id("role:members"), 20, anonymous]) expect(policiesFor("can_create_web_public_channel_group", value).realm_create_web_public_stream_policy).toBe(4);
});
