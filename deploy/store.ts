// `npm run store`: the embedded store alone, in the foreground, until SIGTERM or SIGINT (for an
// operator who runs the services elsewhere with MONGO_URL pointing here). DATA_DIR and STORE_PORT
// choose where it keeps its data and listens.
import { loadConfig } from "../shared/config";
import { startEmbeddedStore, StartupError, type Log } from "../shared/store";

const log: Log = {
	info: (...args) => process.stdout.write(`${args.join(" ")}\n`),
	warn: (...args) => process.stderr.write(`${args.join(" ")}\n`),
};

async function main() {
	const config = loadConfig();
	const store = await startEmbeddedStore({ dataDir: config.dataDir, port: config.storePort, log });
	log.info(`Embedded store: MONGO_URL=${store.url}`);
	let stopping = false;
	const stop = async (signal: string) => {
		if (stopping) return;
		stopping = true;
		log.info(`${signal}: stopping the store`);
		await store.stop();
		process.exit(0);
	};
	process.on("SIGTERM", () => void stop("SIGTERM"));
	process.on("SIGINT", () => void stop("SIGINT"));
	// Stay in the foreground: the store's child process holds no handle of ours open by itself.
	setInterval(() => undefined, 1 << 30);
}

main().catch((err) => {
	process.stderr.write(`Failed to start: ${err instanceof StartupError ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
	process.exit(1);
});
