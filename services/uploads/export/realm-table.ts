// zerver_realm: the organization and its settings, as Zulip's Realm row; its group settings
// (`groupSettings`, each a group's ID as Zulip's row holds them) in place of the names this
// server's settings may hold.
import type { ExportRealm } from "../../../shared/export-rows";
import type { Row } from "./tables";

export function realmRows(realm: ExportRealm, groupSettings: Record<string, number>): Row[] {
	return [
		{
			...realm.settings,
			...groupSettings,
			id: realm.id,
			name: realm.name,
			description: realm.description,
			string_id: realm.string_id,
			date_created: realm.date_created,
			deactivated: realm.deactivated,
		},
	];
}
