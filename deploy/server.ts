// `npm start` (and the image's `node dist/deploy/server.js`): runs this node's services (all of
// them by default) until SIGTERM or SIGINT, then drains and exits 0.
//
// The signal handlers are installed first, before the services load: a signal at any moment, even
// while the node starts or its event loop is busy, leads to the drain. A repeated signal (a
// process group's Ctrl+C reaches both npm and this process, and npm passes its copy on) does not
// cut the drain short; SIGKILL or SIGQUIT does, and STOP_DEADLINE_MS bounds it.
import type { RunningNode } from "../services";
import { StartupError } from "../shared/go-toolchain";

/** The drain's bound: within the grace periods of deploy/ (30 s, and 45 s with the gateways' 5 s preStop). */
const STOP_DEADLINE_MS = 25_000;

interface Log {
	info(msg: string): void;
	warn(msg: string): void;
	error(msg: unknown): void;
}

/** Until the broker's logger exists: plain lines on stderr. */
let log: Log = {
	info: (msg) => process.stderr.write(`${msg}\n`),
	warn: (msg) => process.stderr.write(`${msg}\n`),
	error: (msg) => process.stderr.write(`${String(msg)}\n`),
};
let node: RunningNode | undefined;
let stopSignal: NodeJS.Signals | undefined;

function onSignal(signal: NodeJS.Signals) {
	if (stopSignal) {
		log.warn(`${signal} while stopping: the drain goes on (SIGKILL stops at once)`);
		return;
	}
	stopSignal = signal;
	log.info(`${signal}: draining and stopping`);
	setTimeout(() => {
		log.error(`The drain did not end within ${STOP_DEADLINE_MS / 1000} s: exiting`);
		// The embedded store sees its stdin close, flushes and exits too.
		process.exit(1);
	}, STOP_DEADLINE_MS).unref();
	// A signal during the start stops the node once its start is over.
	if (node) void stop(node);
}
process.on("SIGTERM", onSignal);
process.on("SIGINT", onSignal);

async function stop(running: RunningNode) {
	try {
		await running.stop();
		log.info("Stopped");
		process.exit(0);
	} catch (err) {
		log.error(err);
		process.exit(1);
	}
}

async function main() {
	const [{ loadConfig }, { startNode }, { usePretty }, { banner }] = await Promise.all([
		import("../shared/config"),
		import("../services"),
		import("../shared/logging"),
		import("./banner"),
	]);
	node = await startNode(loadConfig());
	log = node.broker.getLogger("server");
	if (stopSignal) return stop(node);
	log.info(`Node.js ${process.version}, services: ${node.broker.services.map((s) => s.name).filter((n) => !n.startsWith("$")).join(", ")}`);
	if (node.broker.getLocalService("api")) {
		log.info(`Listening on http://${node.config.host}:${node.config.port}/api/v1`);
		// On a terminal, a few plain lines for the person who started it; JSON logs stay JSON.
		if (usePretty(node.config.logFormat)) process.stdout.write(banner({ url: `${node.config.externalUrl}/api/v1`, dataDir: node.config.dataDir }));
	}
}

main().catch((err) => {
	process.stderr.write(`Failed to start: ${err instanceof StartupError ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
	process.exit(1);
});
