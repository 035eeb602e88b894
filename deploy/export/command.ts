// `npm run manage -- export-zulip <out.tar.gz>`
//
// Writes the organization of the environment's database prefix (DB_PREFIX, MONGO_URL or the
// embedded store of DATA_DIR) as a Zulip export with everything the server keeps (export-zulip.ts),
// for Zulip's `manage.py import` or this server's import-zulip. The server may keep running: the
// export reads; what changes while it reads may or may not be in it, as with Zulip's.
import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "../../shared/config";
import { startEmbeddedStore } from "../../shared/store";
import { EXIT, UsageError, type Command, type Parsed } from "../command-line";
import { Progress } from "../progress";
import { exportZulip } from "./export-zulip";

export const EXPORT_COMMAND: Command = {
	name: "export-zulip",
	args: "<out.tar.gz> [--force]",
	summary: "writes the organization, everything it holds, as a Zulip export (.tar.gz)",
	options: { force: { type: "boolean" } },
	positionals: { min: 1, max: 1, what: "file to write (a .tar.gz)" },
	run: exportZulipCommand,
};

async function exportZulipCommand({ positionals, values }: Parsed): Promise<number> {
	const out = path.resolve(positionals[0]);
	if (!/\.(tar\.gz|tgz)$/.test(out)) throw new UsageError(`the file to write must end in .tar.gz, not "${path.basename(out)}"`);
	if (fs.existsSync(out) && !values.force) throw new UsageError(`${positionals[0]} exists already (--force writes over it)`);
	if (!fs.existsSync(path.dirname(out))) throw new UsageError(`no such directory: ${path.dirname(positionals[0])}`);
	const config = loadConfig({ logLevel: process.env.LOG_LEVEL ?? "warn" });
	const store = config.mongoUrl ? undefined : await startEmbeddedStore({ dataDir: config.dataDir, port: config.storePort, logLevel: config.logLevel });
	try {
		const started = performance.now();
		const { stats, bytes } = await exportZulip({ out, mongoUrl: config.mongoUrl || store!.url, prefix: config.dbPrefix, progress: new Progress() });
		const counts = ["zerver_userprofile", "zerver_stream", "zerver_subscription", "zerver_message", "zerver_usermessage", "zerver_reaction", "zerver_attachment"]
			.map((t) => `  ${t}: ${stats[t] ?? 0}`)
			.join("\n");
		const seconds = ((performance.now() - started) / 1000).toFixed(1);
		process.stdout.write(`Exported ${config.dbPrefix} to ${out} (${bytes} bytes, ${seconds} s):\n${counts}\nEvery table's count is in its stats.json.\n`);
		return EXIT.OK;
	} finally {
		await store?.stop();
	}
}
