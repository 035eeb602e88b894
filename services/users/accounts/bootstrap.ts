// First start on an empty database: one organization and its owner, and a zuliprc for the owner.
// Safe to run on every start and from several replicas at once: each step checks what exists,
// and unique indexes settle races.
import { isDuplicateKey } from "../../../shared/db";
import fs from "node:fs";
import path from "node:path";
import type { Model } from "mongoose";
import type { Logger } from "moleculer";
import type { Config } from "../../../shared/config";
import { clock } from "../../../shared/clock";
import { randomToken } from "../../../shared/passwords";
import { Role } from "../../../shared/roles";
import type { RealmDoc } from "../models/realm";
import type { UserDoc } from "../models/user";
import { createUser, zuliprc } from "./accounts";

const REALM_ID = 1;

export async function ensureRealm(Realm: Model<RealmDoc>, config: Config): Promise<RealmDoc> {
	const existing = await Realm.findOne({}).sort({ _id: 1 }).lean();
	if (existing) return existing;
	const realm: RealmDoc = {
		_id: REALM_ID,
		string_id: "",
		name: config.realmName,
		description: "",
		url: config.externalUrl,
		date_created: clock.now(),
		deactivated: false,
		settings: {},
	};
	try {
		await Realm.create(realm);
		return realm;
	} catch (err) {
		if (!isDuplicateKey(err)) throw err;
		return (await Realm.findById(REALM_ID).lean()) as RealmDoc;
	}
}

export async function ensureOwner(
	User: Model<UserDoc>,
	nextId: (entity: string) => Promise<number>,
	realm: RealmDoc,
	config: Config,
	logger: Logger,
): Promise<void> {
	if (await User.exists({ realm_id: realm._id, role: Role.OWNER })) return;
	const password = config.ownerPassword || randomToken(20);
	let owner: UserDoc;
	try {
		owner = await createUser(User, nextId, {
			realm_id: realm._id,
			email: config.ownerEmail,
			full_name: config.ownerName,
			password,
			role: Role.OWNER,
		});
	} catch (err) {
		// Another replica created the owner a moment ago.
		if (await User.exists({ realm_id: realm._id, role: Role.OWNER })) return;
		throw err;
	}
	fs.mkdirSync(config.dataDir, { recursive: true });
	const file = path.join(config.dataDir, "zuliprc");
	fs.writeFileSync(file, zuliprc(owner, config.externalUrl), { mode: 0o600 });
	logger.info(
		{ zuliprc: file, email: owner.delivery_email },
		`Created the organization owner ${owner.delivery_email}; credentials written to ${file}` +
			(config.ownerPassword ? "" : ` (generated password: ${password}; set OWNER_PASSWORD to choose one)`),
	);
}
