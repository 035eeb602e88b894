// shared/transfer-garbage.ts: a node given --expose-gc (as npm start gives it) runs one minor
// collection per 4 MiB of file bytes moved, none for less; without the flag, none at all.
import { execFileSync } from "node:child_process";
import path from "node:path";

const ROOT = path.join(__dirname, "../..");

/** The minor collections a fresh node runs while `transferred` is told of `chunks` 255 KiB chunks (nothing else allocates meanwhile). */
function minorCollections(chunks: number, flags: string[]): number {
	const script = `
		const { PerformanceObserver, constants } = require("node:perf_hooks");
		const { transferred } = require("./shared/transfer-garbage");
		let minor = 0;
		const seen = new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MINOR) minor++; });
		seen.observe({ entryTypes: ["gc"] });
		for (let n = 0; n < ${chunks}; n++) transferred(255 * 1024);
		setTimeout(() => { seen.disconnect(); process.stdout.write(String(minor)); }, 100);`;
	return Number(execFileSync(path.join(ROOT, "node_modules/.bin/node"), [...flags, "--require", "tsx/cjs", "-e", script], { cwd: ROOT, encoding: "utf8" }));
}

test("one minor collection per 4 MiB moved, with --expose-gc", () => {
	// A collection once 17 chunks of 255 KiB (4,335 KiB) have passed 4 MiB: 5 in 100 chunks, none in 16.
	expect(minorCollections(100, ["--expose-gc"])).toBe(5);
	expect(minorCollections(16, ["--expose-gc"])).toBe(0);
});

test("nothing without --expose-gc", () => {
	expect(minorCollections(100, [])).toBe(0);
});
