// GET, POST and PATCH /realm/profile_fields, DELETE /realm/profile_fields/{field_id}
// (administrators change them), and PATCH and DELETE /users/me/profile_data. Each change to the
// fields is announced with all of them (the `custom_profile_fields` event). The rules live in
// profile-fields.ts, profile-field-store.ts and profile-data.ts.
import { requireUser } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import { isAdmin } from "../../../shared/roles";
import { applyUpdate } from "../accounts/user-admin";
import { createField, deleteField, listFields, reorderFields, updateField, type FieldInput } from "./profile-field-store";
import { fieldView } from "./profile-fields";
import { profileDataUpdate } from "./profile-data";
import { requireAdmin, type Ctx, type ServiceDeps } from "../deps";

const fieldParams = {
	name: p.string({ optional: true }),
	hint: p.string({ optional: true }),
	field_data: p.either([p.object({}, { optional: true }), p.string()], { optional: true }),
	display_in_profile_summary: p.bool({ optional: true }),
	required: p.bool({ optional: true }),
	editable_by_user: p.bool({ optional: true }),
};

export function customProfileFieldActions({ db, changed, fieldsChanged }: ServiceDeps) {
	return {
		updateMyProfileData: {
			params: params({ data: p.list(p.object({ id: p.int(), value: { type: "any", nullable: true } })) }),
			async handler(ctx: Ctx<{ data: Array<{ id: number; value: unknown }> }>) {
				const actor = requireUser(ctx);
				const update = await profileDataUpdate(db, ctx.params.data, !isAdmin(actor.role));
				await applyUpdate(db, actor.user_id, update.set, update.unset);
				if (update.changed) await changed(ctx, [actor.user_id], { profile_data: ctx.params.data });
				return {};
			},
		},

		deleteMyProfileData: {
			params: params({ data: p.intList() }),
			async handler(ctx: Ctx<{ data: number[] }>) {
				const actor = requireUser(ctx);
				const update = await profileDataUpdate(db, ctx.params.data.map((id) => ({ id, value: null })), !isAdmin(actor.role));
				await applyUpdate(db, actor.user_id, update.set, update.unset);
				if (update.changed) await changed(ctx, [actor.user_id], { profile_data: ctx.params.data.map((id) => ({ id, value: null })) });
				return {};
			},
		},

		listProfileFields: {
			params: params({}),
			async handler(ctx: Ctx) {
				requireUser(ctx);
				return { custom_fields: (await listFields(db)).map(fieldView) };
			},
		},

		createProfileField: {
			params: params({ ...fieldParams, name: p.string(), field_type: p.int() }),
			async handler(ctx: Ctx<FieldInput & { name: string; field_type: number }>) {
				requireAdmin(ctx);
				const id = await createField(db, ctx.params);
				await fieldsChanged(ctx);
				return { id };
			},
		},

		updateProfileField: {
			params: params({ field_id: p.int(), ...fieldParams }),
			async handler(ctx: Ctx<FieldInput & { field_id: number }>) {
				requireAdmin(ctx);
				const { field_id, ...input } = ctx.params;
				await updateField(db, field_id, input);
				await fieldsChanged(ctx);
				return {};
			},
		},

		deleteProfileField: {
			params: params({ field_id: p.int() }),
			async handler(ctx: Ctx<{ field_id: number }>) {
				requireAdmin(ctx);
				await deleteField(db, ctx.params.field_id);
				await fieldsChanged(ctx);
				return {};
			},
		},

		reorderProfileFields: {
			params: params({ order: p.intList() }),
			async handler(ctx: Ctx<{ order: number[] }>) {
				requireAdmin(ctx);
				await reorderFields(db, ctx.params.order);
				await fieldsChanged(ctx);
				return {};
			},
		},
	};
}
