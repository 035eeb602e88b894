// What the gateway needs to send a stored file (services/api/file-download.ts), made one way for
// every kind of file: uploads, thumbnails, public images, export archives.
import type { OpenedFile } from "../../shared/actions";
import { contentDisposition } from "./file-names";
import { CHUNK_BYTES, type FileId } from "./file-store";

export function sendableFile(f: { file_id: FileId; length: number; content_type: string; name: string; inline: boolean; stored: number }): OpenedFile {
	return {
		file_id: f.file_id.toHexString(),
		length: f.length,
		chunk_bytes: CHUNK_BYTES,
		content_type: f.content_type,
		disposition: contentDisposition(f.name, f.inline),
		stored: f.stored,
	};
}
