// zerver_customprofilefield and zerver_customprofilefieldvalue: the organization's custom profile
// fields and each user's values of them (every member sees both, so a public export holds them).
import type { ExportProfileField, ExportUser } from "../export-rows";
import type { Row, Tables } from "./tables";

export function profileFieldTables(realmId: number, fields: ExportProfileField[], users: ExportUser[]): Tables {
	const known = new Set(fields.map((f) => f.id));
	const zerver_customprofilefield = fields.map((f) => ({
		id: f.id,
		realm: realmId,
		name: f.name,
		hint: f.hint,
		order: f.order,
		display_in_profile_summary: f.display_in_profile_summary,
		required: f.required,
		editable_by_user: f.editable_by_user,
		field_type: f.field_type,
		field_data: f.field_data,
	}));
	const zerver_customprofilefieldvalue: Row[] = [];
	for (const u of users)
		for (const [field, value] of Object.entries(u.profile_data)) {
			if (!known.has(Number(field))) continue;
			zerver_customprofilefieldvalue.push({ id: zerver_customprofilefieldvalue.length + 1, user_profile: u.id, field: Number(field), value, rendered_value: null });
		}
	return { zerver_customprofilefield, zerver_customprofilefieldvalue };
}
