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
import { loadConfig } from "../../shared/config";
import { startEmbeddedStore } from "../../shared/store";
import { RESET_PATH } from "../../services/users/password-reset/password-reset";
import { ImportError } from "../../shared/zulip-format/import-error";
import { importZulip } from "./import-zulip";
import { EXIT, type Command, type Parsed } from "../command-line";

export const IMPORT_COMMAND: Command = {
	name: "import-zulip",
	args: "<export.tar.gz | directory> [--realm-name NAME] [--credentials FILE]",
	summary: "imports a Zulip export into a database prefix that holds nothing yet",
	options: { "realm-name": { type: "string" }, credentials: { type: "string" } },
	positionals: { min: 1, max: 1, what: "export (a .tar.gz or its directory)" },
	run: importZulipCommand,
};

async function importZulipCommand(parsed: Parsed): Promise<number> {
	const values = parsed.values as { "realm-name"?: string; credentials?: string };
	const config = loadConfig({ logLevel: process.env.LOG_LEVEL ?? "warn" });
	const credentialsFile = path.resolve(values.credentials ?? path.join(config.dataDir, "imported-credentials.json"));
	const store = config.mongoUrl ? undefined : await startEmbeddedStore({ dataDir: config.dataDir, port: config.storePort, logLevel: config.logLevel });
	try {
		const result = await importZulip({
			source: parsed.positionals[0],
			realmName: values["realm-name"],
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
		return EXIT.OK;
	} catch (err) {
		// An ImportError names the file and record; anything else is reported as it is.
		process.stderr.write(`Import failed, nothing was kept: ${err instanceof ImportError || err instanceof Error ? err.message : String(err)}\n`);
		return EXIT.FAILED;
	} finally {
		await store?.stop();
	}
}
