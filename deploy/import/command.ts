// `npm run manage -- import-zulip <export.tar.gz | directory> [--realm-name NAME] [--credentials FILE]`
//
// Imports into the database prefix of the environment (DB_PREFIX, MONGO_URL or the embedded store
// of DATA_DIR), which must hold no organization yet; start the server on it afterwards.
//
// Users' way in: exports hold no passwords, and this server has no password-reset link yet, so
// every imported user gets a new API key, written with their address to a credentials file
// (JSON, readable by its owner only; DATA_DIR/imported-credentials.json unless --credentials
// names another) rather than printed: it holds secrets for every account. Users sign in to the
// API with their key; a password is set by an administrator through the API until a reset link
// exists.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../../shared/config";
import { startEmbeddedStore } from "../../shared/store";
import { RESET_PATH } from "../../services/users/password-reset";
import { ImportError } from "./errors";
import { importZulip } from "./import-zulip";

export const IMPORT_USAGE = "usage: npm run manage -- import-zulip <export.tar.gz | directory> [--realm-name NAME] [--credentials FILE]\n";

export async function importZulipCommand(args: string[]): Promise<number> {
	let parsed;
	try {
		parsed = parseArgs({ args, allowPositionals: true, options: { "realm-name": { type: "string" }, credentials: { type: "string" } } });
	} catch (err) {
		process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${IMPORT_USAGE}`);
		return 2;
	}
	if (parsed.positionals.length !== 1) {
		process.stderr.write(IMPORT_USAGE);
		return 2;
	}
	const config = loadConfig({ logLevel: process.env.LOG_LEVEL ?? "warn" });
	const credentialsFile = path.resolve(parsed.values.credentials ?? path.join(config.dataDir, "imported-credentials.json"));
	const store = config.mongoUrl ? undefined : await startEmbeddedStore({ dataDir: config.dataDir, port: config.storePort, logLevel: config.logLevel });
	try {
		const result = await importZulip({
			source: parsed.positionals[0],
			realmName: parsed.values["realm-name"],
			mongoUrl: config.mongoUrl || store!.url,
			prefix: config.dbPrefix,
			url: config.externalUrl,
		});
		fs.mkdirSync(path.dirname(credentialsFile), { recursive: true });
		fs.writeFileSync(credentialsFile, `${JSON.stringify(result.credentials, null, 1)}\n`, { mode: 0o600 });
		const counts = Object.entries(result.counts).map(([what, n]) => `  ${what}: ${n}`);
		process.stdout.write(
			`Imported into ${config.dbPrefix}:\n${counts.join("\n")}\n${result.notKept.format()}` +
				`Each user's new API key is in ${credentialsFile}. Start the server with DB_PREFIX=${config.dbPrefix} to serve the organization.\n` +
				`Exports hold no passwords: users set theirs at ${config.externalUrl}${RESET_PATH}/ (a link by email).\n`,
		);
		return 0;
	} catch (err) {
		// An ImportError names the file and record; anything else is reported as it is.
		process.stderr.write(`Import failed, nothing was kept: ${err instanceof ImportError || err instanceof Error ? err.message : String(err)}\n`);
		return 1;
	} finally {
		await store?.stop();
	}
}
