// Log output: JSON lines for machines (log collectors, files, pipes, tests), and pino-pretty's
// readable lines when a person watches a terminal.
import type { BrokerOptions } from "moleculer";
import pinoPretty from "pino-pretty";

export type LogFormat = "auto" | "json" | "pretty";

/** Pretty when asked to, or on "auto" when stdout is a terminal and this is not a jest worker. */
export function usePretty(format: LogFormat, stdout: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
	if (format !== "auto") return format === "pretty";
	return !!stdout.isTTY && !env.JEST_WORKER_ID;
}

/** Moleculer's logger option: pino, at `level`, JSON or pretty, to stdout (or `to`). */
export function loggerOptions(level: string, pretty: boolean, to?: NodeJS.WritableStream): BrokerOptions["logger"] {
	return {
		type: "Pino",
		options: {
			level,
			pino: {
				options: { base: undefined, timestamp: true },
				// Synchronous, in this thread: lines written just before an exit are not lost.
				destination: pretty
					? pinoPretty({ sync: true, translateTime: "SYS:HH:MM:ss.l", ignore: "nodeID,ns,mod,svc", messageFormat: "{mod}: {msg}", destination: to ?? 1 })
					: to,
			},
		},
	};
}
