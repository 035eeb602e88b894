// The organization (zerver_realm) and its settings: each of Zulip's realm fields that this server
// has a setting for, stored where the users service reads it (`settings.realm_<name>`, only where
// it differs from the default, as realm-update.ts stores a change). Group settings name groups
// (groups.ts); the announcement channels name channels, whose IDs are kept.
import { REALM_GROUP_SETTING_DEFAULTS, REALM_SETTING_DEFAULTS } from "../../services/users/realm/realm-settings";
import type { RealmDoc } from "../../services/users/models/realm";
import { REALM_IDENTITY } from "../../shared/zulip-format/import-coverage";
import { CHANNEL_FIELDS } from "../../shared/zulip-format/realm-table";
import { seconds, table, type ImportContext } from "./context";
import type { GroupValues } from "./groups";

export async function importRealm(ctx: ImportContext, groups: GroupValues, name: string | undefined): Promise<void> {
	const records = table(ctx, "zerver_realm");
	if (records.length !== 1) throw new Error(`realm.json, zerver_realm: holds ${records.length} organizations, not one`);
	const r = records[0];
	ctx.ids.zulipRealmId = r.int("id");
	const settings: Record<string, unknown> = {};
	// The icon's and logos' sources and versions are realm-images.ts's.
	const kept = new Set<string>(REALM_IDENTITY);
	for (const [key, def] of Object.entries(REALM_SETTING_DEFAULTS)) {
		const field = key.slice("realm_".length);
		if (!Object.hasOwn(r.raw, field)) continue;
		let v = r.raw[field];
		// Zulip's null retention is "forever", -1 here.
		if (field === "message_retention_days" && v === null) v = -1;
		kept.add(field);
		if (v === def || (def !== null && v !== null && typeof v !== typeof def)) continue;
		settings[key] = v;
	}
	for (const [field, key] of Object.entries(CHANNEL_FIELDS)) {
		if (!Object.hasOwn(r.raw, field)) continue;
		kept.add(field);
		const id = r.optInt(field);
		if (id !== null) settings[`realm_${key}`] = ctx.ids.channels.get(id, r, field);
	}
	for (const key of Object.keys(REALM_GROUP_SETTING_DEFAULTS)) {
		if (r.raw[key] == null) continue;
		kept.add(key);
		settings[`realm_${key}`] = groups.value(r.int(key), r, key);
	}
	const description = r.optStr("description") ?? "";
	if (description) settings.realm_description = description;
	const unkept = Object.keys(r.raw).filter((f) => !kept.has(f)).sort();
	if (unkept.length) ctx.notKept.add("zerver_realm", `settings with no place here: ${unkept.join(", ")}`, unkept.length);

	const doc: RealmDoc = {
		_id: ctx.realmId,
		// The root organization of this server, whatever its subdomain was on Zulip's.
		string_id: "",
		name: name ?? r.str("name"),
		description,
		url: ctx.url,
		date_created: seconds(r.num("date_created")),
		deactivated: false,
		settings,
	};
	await ctx.target.m.Realm.create(doc);
}
