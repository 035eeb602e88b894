// The embedded store's log lines as the node logs them (shared/store-log.ts): slog's JSON at its
// level, with its attributes as key=value; anything else an error line.
import { PassThrough } from "node:stream";
import { forwardStoreLog, parseStoreLine, storeLogLevel } from "../../shared/store-log";

test("slog's JSON lines keep their level and attributes; other lines are errors; blank lines nothing", () => {
	expect(parseStoreLine('{"time":"2026-11-26T04:00:00Z","level":"WARN","msg":"journal: dropping an incomplete last record","offset":123,"cause":"unexpected EOF"}')).toEqual({
		level: "warn",
		text: 'journal: dropping an incomplete last record offset=123 cause="unexpected EOF"',
	});
	expect(parseStoreLine('{"level":"ERROR+2","msg":"m"}')?.level).toBe("error");
	expect(parseStoreLine('{"level":"INFO","msg":"embedded store listening","listen":"127.0.0.1:1"}')).toEqual({ level: "info", text: "embedded store listening listen=127.0.0.1:1" });
	expect(parseStoreLine('{"level":"DEBUG-4","msg":"m"}')?.level).toBe("debug");
	expect(parseStoreLine("embedded-store: listen tcp 127.0.0.1:1: bind: address already in use")).toEqual({ level: "error", text: "embedded-store: listen tcp 127.0.0.1:1: bind: address already in use" });
	expect(parseStoreLine('["not", "a record"]')?.level).toBe("error");
	expect(parseStoreLine("  ")).toBeUndefined();
});

test("the store logs warnings and errors at the node's default level, everything at debug", () => {
	expect(storeLogLevel("info")).toBe("warn");
	expect(storeLogLevel(undefined)).toBe("warn");
	expect(storeLogLevel("warn")).toBe("warn");
	expect(storeLogLevel("debug")).toBe("debug");
	expect(storeLogLevel("trace")).toBe("debug");
});

test("each line goes to the logger's method for its level; an error to warn where the logger has no error", async () => {
	const seen: string[] = [];
	const full = { info: (m: unknown) => seen.push(`info ${m}`), warn: (m: unknown) => seen.push(`warn ${m}`), error: (m: unknown) => seen.push(`error ${m}`), debug: (m: unknown) => seen.push(`debug ${m}`) };
	const small = { info: (m: unknown) => seen.push(`small info ${m}`), warn: (m: unknown) => seen.push(`small warn ${m}`) };
	for (const log of [full, small]) {
		const out = new PassThrough();
		forwardStoreLog(out, log);
		out.end('{"level":"WARN","msg":"w"}\n{"level":"DEBUG","msg":"d"}\npanic: boom\n');
		await new Promise((r) => out.on("end", r).resume());
		await new Promise((r) => setImmediate(r));
	}
	expect(seen).toEqual(["warn w", "debug d", "error panic: boom", "small warn w", "small warn panic: boom"]);
});
