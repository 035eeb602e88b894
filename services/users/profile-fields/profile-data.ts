// Writing users' custom profile field values: used by administrators (PATCH /users/{id}) and by
// users for their own fields (PATCH /users/me/profile_data).
import { badRequest } from "../../../shared/errors";
import type { UsersDb } from "../db";
import { checkValue, isEmptyValue } from "./profile-fields";

export interface ProfileDataUpdate {
	set: Record<string, string>;
	unset: Record<string, "">;
	changed: boolean;
}

/**
 * Checks every `{id, value}` against its field and returns the update to apply: a value sets the
 * field, an empty one ("", null, []) clears it. `onlyEditable` refuses fields users may not edit.
 */
export async function profileDataUpdate(db: UsersDb, items: Array<{ id: number; value: unknown }>, onlyEditable = false): Promise<ProfileDataUpdate> {
	const fields = new Map((await db.ProfileField.find({ realm_id: db.realm._id }).lean()).map((f) => [f._id, f]));
	const out: ProfileDataUpdate = { set: {}, unset: {}, changed: false };
	const userIdsExist = async (ids: number[]) => (await db.User.countDocuments({ realm_id: db.realm._id, _id: { $in: ids } })) === ids.length;
	for (const { id, value } of items) {
		const field = fields.get(id);
		if (!field) throw badRequest(`Field id ${id} not found.`);
		if (onlyEditable && !field.editable_by_user) throw badRequest(`You are not allowed to change this field. Contact an administrator to update it.`);
		if (isEmptyValue(value)) out.unset[`profile_data.${id}`] = "";
		else out.set[`profile_data.${id}`] = await checkValue(field, value, userIdsExist);
		out.changed = true;
	}
	return out;
}
