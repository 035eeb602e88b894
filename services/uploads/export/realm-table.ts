// zerver_realm: the organization and its settings, as Zulip's Realm row.
import type { ExportRealm } from "../../../shared/export-rows";
import type { Row } from "./tables";

export function realmRows(realm: ExportRealm): Row[] {
	return [
		{
			...realm.settings,
			id: realm.id,
			name: realm.name,
			description: realm.description,
			string_id: realm.string_id,
			date_created: realm.date_created,
			deactivated: realm.deactivated,
		},
	];
}
