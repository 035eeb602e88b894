// The stored files of a full export, in Zulip's layout: uploads/ (message attachments, by path_id),
// emoji/ (custom emoji images), avatars/ (users' uploaded avatars) and realm_icons/ (the
// organization's icon and logos), each file added as it is read, and each folder's records.json
// naming every file with what Zulip's import reads of it. The folders and their records.json are
// written even when empty, as Zulip's export does.
import type { ExportFile } from "./source";
import type { Row } from "./tables";

export const FILE_FOLDERS = ["uploads", "emoji", "avatars", "realm_icons"] as const;

export class FileFolders {
	private readonly records: Record<ExportFile["folder"], Row[]> = { uploads: [], emoji: [], avatars: [], realm_icons: [] };

	constructor(
		private readonly realmId: number,
		/** Users' addresses, for the records that name a user. */
		private readonly emails: Map<number, string>,
	) {}

	/** Where the file goes in the export, under the export's directory; its record is kept for records.json. */
	add(f: ExportFile): string {
		const base = { realm_id: this.realmId, path: f.path, s3_path: f.path };
		if (f.folder === "emoji") {
			const e = f.emoji!;
			this.records.emoji.push({ ...base, author: f.user_id, file_name: e.file_name, name: e.name, deactivated: e.deactivated });
		} else {
			const user = f.user_id === null ? {} : { user_profile_id: f.user_id, user_profile_email: this.emails.get(f.user_id) ?? null };
			this.records[f.folder].push({ ...base, ...user, size: f.bytes.length, last_modified: f.last_modified, content_type: f.content_type });
		}
		return `${f.folder}/${f.path}`;
	}

	/** Each folder's records.json: its name under the export's directory, and its rows. */
	recordFiles(): Array<[string, Row[]]> {
		return FILE_FOLDERS.map((folder) => [`${folder}/records.json`, this.records[folder]]);
	}

	count(folder: ExportFile["folder"]): number {
		return this.records[folder].length;
	}
}
