// The stored files of a full export, in Zulip's layout: uploads/ (message attachments, by path_id),
// emoji/ (custom emoji images), avatars/ (users' uploaded avatars) and realm_icons/ (the
// organization's icon and logos), each file added as it is read, and each folder's records.json
// naming every file with what Zulip's import reads of it. The folders and their records.json are
// written even when empty, as Zulip's export does.
import type { ExportFile } from "./source";
import { FILE_FOLDERS, type FileFolder, type Row } from "./tables";

export class FileFolders {
	private readonly records = Object.fromEntries(FILE_FOLDERS.map((folder) => [folder, [] as Row[]])) as Record<FileFolder, Row[]>;

	constructor(
		private readonly realmId: number,
		/** The users, for the records that name one: their address, and the avatar version Zulip's import files an avatar under. */
		private readonly users: Map<number, { delivery_email: string; avatar_version: number }>,
	) {}

	/** Where the file goes in the export, under the export's directory; its record is kept for records.json. */
	add(f: ExportFile): string {
		const base = { realm_id: this.realmId, path: f.path, s3_path: f.path };
		if (f.folder === "emoji") {
			const e = f.emoji!;
			this.records.emoji.push({ ...base, author: f.user_id, file_name: e.file_name, name: e.name, deactivated: e.deactivated });
		} else {
			const owner = f.user_id === null ? undefined : this.users.get(f.user_id);
			const user = f.user_id === null ? {} : { user_profile_id: f.user_id, user_profile_email: owner?.delivery_email ?? null };
			// Zulip's import reads an avatar's version (record["avatar_version"]) to place it.
			const version = f.folder === "avatars" ? { avatar_version: owner?.avatar_version ?? 1 } : {};
			this.records[f.folder].push({ ...base, ...user, ...version, size: f.bytes.length, last_modified: f.last_modified, content_type: f.content_type });
		}
		return `${f.folder}/${f.path}`;
	}

	/** Each folder's records.json: its name under the export's directory, and its rows. */
	recordFiles(): Array<[string, Row[]]> {
		return FILE_FOLDERS.map((folder) => [`${folder}/records.json`, this.records[folder]]);
	}

	count(folder: FileFolder): number {
		return this.records[folder].length;
	}
}
