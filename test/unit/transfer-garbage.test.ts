// shared/transfer-garbage.ts: a node given --expose-gc (as npm start and npm run manage give it)
// runs one minor collection per 4 MiB of file bytes moved, none for less, and a full one every
// four message files imported or exported; without the flag, none at all.
import { execFileSync } from "node:child_process";
import path from "node:path";

const ROOT = path.join(__dirname, "../..");

/** The collections of `kind` a fresh node runs while `work` runs (nothing else allocates meanwhile). */
function collections(kind: "MINOR" | "MAJOR", work: string, flags: string[]): number {
	const script = `
		const { PerformanceObserver, constants } = require("node:perf_hooks");
		const { transferred, messageFileMoved } = require("./shared/transfer-garbage");
		let seenCount = 0;
		const seen = new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_${kind}) seenCount++; });
		seen.observe({ entryTypes: ["gc"] });
		${work};
		setTimeout(() => { seen.disconnect(); process.stdout.write(String(seenCount)); }, 100);`;
	return Number(execFileSync(path.join(ROOT, "node_modules/.bin/node"), [...flags, "--require", "tsx/cjs", "-e", script], { cwd: ROOT, encoding: "utf8" }));
}

const chunks = (n: number) => `for (let n = 0; n < ${n}; n++) transferred(255 * 1024)`;
const files = (n: number) => `for (let n = 0; n < ${n}; n++) messageFileMoved()`;

test("one minor collection per 4 MiB moved, with --expose-gc", () => {
	// A collection once 17 chunks of 255 KiB (4,335 KiB) have passed 4 MiB: 5 in 100 chunks, none in 16.
	expect(collections("MINOR", chunks(100), ["--expose-gc"])).toBe(5);
	expect(collections("MINOR", chunks(16), ["--expose-gc"])).toBe(0);
});

test("one full collection per four message files, with --expose-gc", () => {
	expect(collections("MAJOR", files(9), ["--expose-gc"])).toBe(2);
	expect(collections("MAJOR", files(3), ["--expose-gc"])).toBe(0);
});

test("nothing without --expose-gc", () => {
	expect(collections("MINOR", chunks(100), [])).toBe(0);
	expect(collections("MAJOR", files(9), [])).toBe(0);
});
