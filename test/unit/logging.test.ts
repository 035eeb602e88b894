// Log format: pino-pretty's lines on a terminal, JSON everywhere else (pipes, files, collectors,
// tests); LOG_FORMAT forces either.
import { PassThrough } from "node:stream";
import { ServiceBroker } from "moleculer";
import { loggerOptions, usePretty } from "../../shared/logging";

test("auto: pretty only when stdout is a terminal and not under jest; json and pretty force it", () => {
	expect(usePretty("auto", { isTTY: true }, {})).toBe(true);
	expect(usePretty("auto", { isTTY: false }, {})).toBe(false);
	expect(usePretty("auto", {}, {})).toBe(false);
	expect(usePretty("auto", { isTTY: true }, { JEST_WORKER_ID: "1" })).toBe(false);
	expect(usePretty("json", { isTTY: true }, {})).toBe(false);
	expect(usePretty("pretty", { isTTY: false }, { JEST_WORKER_ID: "1" })).toBe(true);
});

/** What a broker with these logger options writes for one info line. */
function logLine(pretty: boolean): string {
	const out = new PassThrough();
	let text = "";
	out.on("data", (d) => (text += d));
	const broker = new ServiceBroker({ nodeID: "n1", logger: loggerOptions("info", pretty, out), logLevel: "info" });
	broker.getLogger("server").info("hello there");
	return text;
}

test("JSON lines by default, readable lines with pretty", () => {
	const json = logLine(false).trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
	expect(json.find((l) => l.msg === "hello there")).toMatchObject({ level: 30, mod: "server", nodeID: "n1" });
	const pretty = logLine(true);
	expect(pretty).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] .*INFO.*: .*server: hello there/m);
	expect(pretty).not.toContain("{");
});
