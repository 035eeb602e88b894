// `npm start`: runs this node's services (all of them by default) until SIGTERM or SIGINT.
import { loadConfig } from "../shared/config";
import { startNode } from "../services";
import { StartupError } from "../shared/store";
import { usePretty } from "../shared/logging";
import { banner } from "./banner";

async function main() {
	const node = await startNode(loadConfig());
	const log = node.broker.getLogger("server");
	log.info(`Node.js ${process.version}, services: ${node.broker.services.map((s) => s.name).filter((n) => !n.startsWith("$")).join(", ")}`);
	if (node.broker.getLocalService("api")) {
		log.info(`Listening on http://${node.config.host}:${node.config.port}/api/v1`);
		// On a terminal, a few plain lines for the person who started it; JSON logs stay JSON.
		if (usePretty(node.config.logFormat)) process.stdout.write(banner({ url: `${node.config.externalUrl}/api/v1`, dataDir: node.config.dataDir }));
	}
	let stopping = false;
	const stop = async (signal: string) => {
		if (stopping) return;
		stopping = true;
		log.info(`${signal}: draining and stopping`);
		try {
			await node.stop();
			process.exit(0);
		} catch (err) {
			log.error(err);
			process.exit(1);
		}
	};
	process.on("SIGTERM", () => void stop("SIGTERM"));
	process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((err) => {
	process.stderr.write(`Failed to start: ${err instanceof StartupError ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
	process.exit(1);
});
