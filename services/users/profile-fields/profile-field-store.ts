// Creating, editing, reordering and deleting an organization's custom profile fields.
import { badRequest } from "../../../shared/errors";
import type { UsersDb } from "../db";
import type { ProfileFieldDoc } from "./profile-field-model";
import { checkFieldData, checkHint, checkName, FieldType } from "./profile-fields";

const SUMMARY_LIMIT = 2;
const NOT_IN_SUMMARY: number[] = [FieldType.LONG_TEXT, FieldType.USER];

export interface FieldInput {
	name?: string;
	hint?: string;
	field_type?: number;
	field_data?: unknown;
	display_in_profile_summary?: boolean;
	required?: boolean;
	editable_by_user?: boolean;
}

export async function listFields(db: Pick<UsersDb, "ProfileField" | "realm">): Promise<ProfileFieldDoc[]> {
	return db.ProfileField.find({ realm_id: db.realm._id }).sort({ order: 1 }).lean();
}

export async function fieldMap(db: UsersDb): Promise<Map<number, ProfileFieldDoc>> {
	return new Map((await listFields(db)).map((f) => [f._id, f]));
}

async function checkCommon(db: UsersDb, type: number, input: FieldInput, selfId?: number): Promise<void> {
	if (input.name !== undefined) {
		const name = checkName(input.name);
		const clash = (await listFields(db)).find((f) => f._id !== selfId && f.name.toLowerCase() === name.toLowerCase());
		if (clash) throw badRequest("A field with that label already exists.");
	}
	if (input.hint !== undefined) checkHint(input.hint);
	if (input.display_in_profile_summary) {
		if (NOT_IN_SUMMARY.includes(type)) throw badRequest("Field type not supported for display in profile summary.");
		const shown = (await listFields(db)).filter((f) => f.display_in_profile_summary && f._id !== selfId).length;
		if (shown >= SUMMARY_LIMIT) throw badRequest(`Only ${SUMMARY_LIMIT} custom profile fields can be displayed in the profile summary.`);
	}
}

export async function createField(db: UsersDb, input: FieldInput & { name: string; field_type: number }): Promise<number> {
	const type = input.field_type;
	if (!Object.values(FieldType).includes(type as never)) throw badRequest("Invalid field type.");
	await checkCommon(db, type, input);
	const fieldData = checkFieldData(type, input.field_data);
	const last = await db.ProfileField.findOne({ realm_id: db.realm._id }).sort({ order: -1 }).lean();
	const id = await db.nextId("profile_field");
	await db.ProfileField.create({
		_id: id,
		realm_id: db.realm._id,
		name: checkName(input.name),
		hint: input.hint ?? "",
		type,
		field_data: fieldData,
		order: (last?.order ?? 0) + 1,
		display_in_profile_summary: input.display_in_profile_summary ?? false,
		required: input.required ?? false,
		editable_by_user: input.editable_by_user ?? true,
	});
	return id;
}

async function findField(db: UsersDb, id: number): Promise<ProfileFieldDoc> {
	const field = await db.ProfileField.findOne({ _id: id, realm_id: db.realm._id }).lean();
	if (!field) throw badRequest("Field id " + id + " not found.");
	return field;
}

export async function updateField(db: UsersDb, id: number, input: FieldInput): Promise<void> {
	const field = await findField(db, id);
	await checkCommon(db, field.type, input, id);
	const set: Partial<ProfileFieldDoc> = {};
	if (input.name !== undefined) set.name = checkName(input.name);
	if (input.hint !== undefined) set.hint = input.hint;
	if (input.field_data !== undefined) set.field_data = checkFieldData(field.type, input.field_data);
	for (const k of ["display_in_profile_summary", "required", "editable_by_user"] as const) if (input[k] !== undefined) set[k] = input[k];
	if (Object.keys(set).length) await db.ProfileField.updateOne({ _id: id }, { $set: set });
}

/** Deletes the field and every user's value for it. */
export async function deleteField(db: UsersDb, id: number): Promise<void> {
	await findField(db, id);
	// Values first: a failure in between leaves the field with fewer values, never values without a field.
	await db.User.updateMany({ realm_id: db.realm._id, [`profile_data.${id}`]: { $exists: true } }, { $unset: { [`profile_data.${id}`]: "" } });
	await db.ProfileField.deleteOne({ _id: id });
}

/** `order` must name every field exactly once. */
export async function reorderFields(db: UsersDb, order: number[]): Promise<void> {
	const fields = await listFields(db);
	const ids = new Set(fields.map((f) => f._id));
	if (order.length !== ids.size || new Set(order).size !== order.length || !order.every((id) => ids.has(id))) {
		throw badRequest("Invalid order mapping.");
	}
	await db.ProfileField.bulkWrite(order.map((id, i) => ({ updateOne: { filter: { _id: id }, update: { $set: { order: i + 1 } } } })));
}
