// Summarizes `node --cpu-prof` profiles (BENCH_CPU_PROF=<dir> npm run bench): self time by
// where the code lives (Node's HTTP and network code, moleculer-web, moleculer, the project, each
// other package, garbage collection), then the functions with the most self time. The second
// column leaves out socket writes and garbage collection: the profiler counts wall time, and on a
// busy machine a write that wakes the client (loopback) takes far longer than its CPU time.
//
//   npx tsx test/bench/cpu-profile.ts <dir or .cpuprofile files> [--top N] [--min-ms N]
//
// Profiles of less than --min-ms (default 1000) of busy time are left out (the tsx launchers).
import fs from "node:fs";
import path from "node:path";

interface Node {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}
interface Profile {
	nodes: Node[];
	samples: number[];
	timeDeltas: number[];
}

const LEFT_OUT = new Set(["native: writeUtf8String", "native: writeBuffer", "native: writev", "native: writeLatin1String", "garbage collection"]);

const NODE_HTTP = /^node:(_http_|http|net|stream|internal\/(http|streams|stream_base|net|js_stream|dns|url|timers))/;

function category(frame: Node["callFrame"]): string {
	const { url, functionName } = frame;
	if (functionName === "(garbage collector)") return "garbage collection";
	if (functionName === "(idle)") return "(idle)";
	if (functionName === "(program)") return "(program: native, unattributed)";
	if (!url) return `native: ${functionName || "(anonymous)"}`;
	const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
	if (pkg) return pkg[1];
	if (NODE_HTTP.test(url)) return "Node http/net/streams";
	if (url.startsWith("node:")) return "Node, other";
	const m = /\/(services|shared)\/(.*)$/.exec(url);
	if (m) return `project: ${m[1]}/${m[2].split("/")[0]}`;
	return "other";
}

function selfTimes(p: Profile): Map<number, number> {
	const out = new Map<number, number>();
	p.samples.forEach((id, i) => out.set(id, (out.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
	return out;
}

function main() {
	const args = process.argv.slice(2);
	const opt = (name: string, def: number) => {
		const i = args.indexOf(name);
		if (i < 0) return def;
		const v = Number(args[i + 1]);
		args.splice(i, 2);
		return v;
	};
	const top = opt("--top", 30);
	const minMs = opt("--min-ms", 1000);
	const files = args.flatMap((a) => (fs.statSync(a).isDirectory() ? fs.readdirSync(a).filter((f) => f.endsWith(".cpuprofile")).map((f) => path.join(a, f)) : [a]));
	for (const file of files) {
		const p = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
		const self = selfTimes(p);
		const byId = new Map(p.nodes.map((n) => [n.id, n]));
		const byCategory = new Map<string, number>();
		const byFunction = new Map<string, number>();
		let busy = 0;
		for (const [id, us] of self) {
			const n = byId.get(id)!;
			const c = category(n.callFrame);
			byCategory.set(c, (byCategory.get(c) ?? 0) + us);
			if (c === "(idle)") continue;
			busy += us;
			const f = `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/(services|shared)\//, "$1/")}:${n.callFrame.lineNumber + 1}`;
			byFunction.set(f, (byFunction.get(f) ?? 0) + us);
		}
		if (busy / 1000 < minMs) continue;
		const pct = (us: number, of = busy) => `${((100 * us) / of).toFixed(1).padStart(5)} %`;
		const rest = busy - [...byCategory].filter(([c]) => LEFT_OUT.has(c)).reduce((n, [, us]) => n + us, 0);
		process.stdout.write(`\n${path.basename(file)}: ${(busy / 1e6).toFixed(1)} s busy\n  of all    of the rest\n`);
		for (const [c, us] of [...byCategory].filter(([c]) => c !== "(idle)").sort((a, b) => b[1] - a[1])) {
			if (us / busy < 0.002) continue;
			process.stdout.write(`  ${pct(us)}  ${LEFT_OUT.has(c) ? "       " : pct(us, rest)}  ${c}\n`);
		}
		process.stdout.write(`  top ${top} functions by self time:\n`);
		for (const [f, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`  ${pct(us)}  ${f}\n`);
	}
}

main();
