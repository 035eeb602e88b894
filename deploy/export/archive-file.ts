// Where the management CLI's export archive goes: a file, written as the export's tarball writer
// hands over its chunks (services/uploads/export/tarball.ts writes them in order, one at a time),
// under a temporary name until it is complete, so a failed or interrupted export never leaves a
// file that looks finished.
import fs from "node:fs";
import path from "node:path";

export class ArchiveFile {
	private handle: fs.promises.FileHandle | undefined;
	private readonly partial: string;

	constructor(readonly file: string) {
		this.partial = path.join(path.dirname(file), `.${path.basename(file)}.partial`);
	}

	async open(): Promise<void> {
		this.handle = await fs.promises.open(this.partial, "w", 0o600);
	}

	/** The tarball writer's chunk `n`, appended (they come in order). */
	async writeChunk(_id: unknown, _n: number, data: Buffer): Promise<void> {
		await this.handle!.write(data);
	}

	/** Gives the complete archive its name. */
	async finish(): Promise<void> {
		await this.handle!.close();
		this.handle = undefined;
		await fs.promises.rename(this.partial, this.file);
	}

	/** Drops what was written. */
	async remove(): Promise<void> {
		await this.handle?.close().catch(() => undefined);
		this.handle = undefined;
		await fs.promises.rm(this.partial, { force: true });
	}
}
