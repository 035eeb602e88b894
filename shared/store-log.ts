// The embedded store's own log lines (slog's JSON on its stderr: {"time","level","msg",...}) passed
// on to the node's logger at their level, so a store warning shows at the node's default level
// (info) beside the node's own lines, JSON or pretty as those are. Anything else the store writes
// there (a fatal start error, a Go panic) is an error line.
import readline from "node:readline";
import type { Readable } from "node:stream";

export type StoreLevel = "debug" | "info" | "warn" | "error";

export interface StoreLog {
	info(...args: unknown[]): void;
	warn(...args: unknown[]): void;
	error?(...args: unknown[]): void;
	debug?(...args: unknown[]): void;
}

/**
 * The level the store is started at for a node logging at `nodeLevel`. Decision: warnings and
 * errors always (the node's default level is info, and they are what an operator must see); the
 * store's info lines (loaded, listening) only when the node logs at debug or trace, since the node
 * logs the store's start itself and they would repeat it.
 */
export function storeLogLevel(nodeLevel: string | undefined): StoreLevel {
	return nodeLevel === "debug" || nodeLevel === "trace" ? "debug" : "warn";
}

/** slog's level names ("WARN", "ERROR+2", "DEBUG-4") as ours. */
function levelOf(name: unknown): StoreLevel {
	const n = String(name).toUpperCase();
	if (n.startsWith("ERROR")) return "error";
	if (n.startsWith("WARN")) return "warn";
	if (n.startsWith("INFO")) return "info";
	return "debug";
}

const quoted = (v: unknown) => (typeof v === "string" && /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v));

/** One line of the store's output as the level and the text to log: `msg key=value ...`. */
export function parseStoreLine(line: string): { level: StoreLevel; text: string } | undefined {
	if (!line.trim()) return undefined;
	let rec: Record<string, unknown> | undefined;
	try {
		const parsed: unknown = JSON.parse(line);
		if (parsed && typeof parsed === "object" && !Array.isArray(parsed) && "msg" in parsed) rec = parsed as Record<string, unknown>;
	} catch {
		/* not one of slog's lines */
	}
	if (!rec) return { level: "error", text: line };
	const { level, msg, ...attrs } = rec;
	const rest = Object.entries(attrs)
		.filter(([k]) => k !== "time").map(([k, v]) => `${k}=${quoted(v)}`);
	return { level: levelOf(level), text: [String(msg), ...rest].join(" ") };
}

/** Logs each line `from` gives through `log` at its level (an error line where `log` has no error, a debug line dropped where it has no debug). */
export function forwardStoreLog(from: Readable, log: StoreLog): void {
	const lines = readline.createInterface({ input: from, crlfDelay: Infinity });
	lines.on("line", (line) => {
		const parsed = parseStoreLine(line);
		if (!parsed) return;
		const write = parsed.level === "error" ? (log.error ?? log.warn) : parsed.level === "debug" ? log.debug : log[parsed.level];
		write?.call(log, parsed.text);
	});
}
