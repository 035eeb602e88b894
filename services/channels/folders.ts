// Channel folders: created and edited by organization administrators.
import { badRequest } from "../../shared/errors";
import { isDuplicateKey } from "../../shared/db";
import { clock } from "../../shared/clock";
import type { ChannelsDb } from "./db";
import type { ChannelFolderDoc } from "./models/channel-folder";
import { renderDescription } from "./channel-rules";

const NAME_MAX = 60;
const DESCRIPTION_MAX = 1024;

function checkName(raw: string): string {
	const name = raw.trim();
	if (!name) throw badRequest("Channel folder name can't be empty.");
	if (name.length > NAME_MAX) throw badRequest(`Channel folder name too long (limit: ${NAME_MAX} characters).`);
	return name;
}

function checkDescription(raw: string): string {
	if (raw.length > DESCRIPTION_MAX) throw badRequest(`description is too long (limit: ${DESCRIPTION_MAX} characters)`);
	return raw.trim();
}

const nameTaken = (name: string) => badRequest(`Channel folder name '${name}' already in use.`);

export function folderView(f: ChannelFolderDoc): Record<string, unknown> {
	return {
		id: f._id,
		name: f.name,
		description: f.description,
		rendered_description: f.rendered_description,
		order: f.order,
		is_archived: f.is_archived,
		creator_id: f.creator_id,
		date_created: f.date_created,
	};
}

export async function createFolder(db: ChannelsDb, creatorId: number, rawName: string, rawDescription: string): Promise<number> {
	const name = checkName(rawName);
	const description = checkDescription(rawDescription);
	if (await db.ChannelFolder.exists({ realm_id: db.realmId, name_key: name.toLowerCase() })) throw nameTaken(name);
	const last = await db.ChannelFolder.findOne({ realm_id: db.realmId }).sort({ order: -1 }).lean();
	const id = await db.nextId("channel_folder");
	try {
		await db.ChannelFolder.create({
			_id: id,
			realm_id: db.realmId,
			name,
			name_key: name.toLowerCase(),
			description,
			rendered_description: renderDescription(description),
			order: (last?.order ?? 0) + 1,
			is_archived: false,
			creator_id: creatorId,
			date_created: clock.now(),
		});
	} catch (err) {
		if (isDuplicateKey(err)) throw nameTaken(name);
		throw err;
	}
	return id;
}

export async function updateFolder(db: ChannelsDb, id: number, q: { name?: string; description?: string; is_archived?: boolean }): Promise<void> {
	const folder = await db.ChannelFolder.findOne({ _id: id, realm_id: db.realmId }).lean();
	if (!folder) throw badRequest("Invalid channel folder ID");
	const set: Record<string, unknown> = {};
	if (q.name !== undefined) {
		const name = checkName(q.name);
		const clash = await db.ChannelFolder.findOne({ realm_id: db.realmId, name_key: name.toLowerCase() }).lean();
		if (clash && clash._id !== id) throw nameTaken(name);
		Object.assign(set, { name, name_key: name.toLowerCase() });
	}
	if (q.description !== undefined) {
		const description = checkDescription(q.description);
		Object.assign(set, { description, rendered_description: renderDescription(description) });
	}
	if (q.is_archived !== undefined) set.is_archived = q.is_archived;
	if (!Object.keys(set).length) throw badRequest("No new data supplied");
	await db.ChannelFolder.updateOne({ _id: id }, { $set: set });
}
