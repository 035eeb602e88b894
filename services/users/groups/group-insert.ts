// A new user group under the next ID: the one place a group document is created.
import { clock } from "../../../shared/clock";
import { isDuplicateKey } from "../../../shared/db";
import type { UsersDb } from "../db";
import type { UserGroupDoc } from "./user-group-model";

/** Settings left out take their defaults when read. */
type NewGroup = Omit<UserGroupDoc, "_id" | "realm_id" | "deactivated" | "date_created" | "settings"> & { settings: Partial<UserGroupDoc["settings"]> };

/** The new group's ID, or null when the name is taken (the unique name index decides races). */
export async function insertGroup(db: UsersDb, group: NewGroup): Promise<number | null> {
	const id = await db.nextId("user_group");
	try {
		await db.UserGroup.create({ ...group, _id: id, realm_id: db.realm._id, deactivated: false, date_created: clock.now() });
		return id;
	} catch (err) {
		if (isDuplicateKey(err)) return null;
		throw err;
	}
}
