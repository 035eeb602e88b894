// The files figures of `npm run bench` (BENCH_ONLY=files): POST /user_uploads and the downloads at
// /user_uploads/..., in one process and with the gateway and the uploads service each in a process
// of its own over NATS (the other services in a third). For each topology:
//   - memory: the resident set (RSS, /proc/<pid>/status) of the gateway's and the uploads
//     service's processes before, during (sampled every 20 ms; the peak) and after (1 s later) one
//     upload of a BENCH_FILES_MIB file (default 25), after a warm-up upload of the same size, then
//     during its download and during the 20 concurrent uploads below; and,
//     during a second such upload, the memory still in use after a full garbage collection
//     (V8's heap and external memory, Buffers included), every second: the nodes run with
//     gc-probe.cjs, which collects and reports on SIGUSR2. The goal is a growth of a few chunks
//     (255 KiB each) at most. BENCH_FILES_NODE_OPTIONS adds V8 flags to those nodes (e.g.
//     `--max-semi-space-size=1`, to see how much of the growth is V8's young generation); during
//     the measured upload the young generation's own size is sampled too (gc-probe.cjs, SIGWINCH);
//   - throughput: MB/s of that upload and of its download (read back byte-exact), the median of
//     BENCH_FILES_ROUNDS (default 3);
//   - 20 concurrent 5 MiB uploads, each read back byte-exact (failures counted);
//   - GET of a 100 KB PNG by 4 concurrent clients for BENCH_FILES_SECONDS (default 10): p50, p99,
//     requests/s.
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import sharp from "sharp";
import { freePort } from "../../shared/store";
import { SERVICES } from "../../services/index";
import { formatTable, sleep, startBenchNodes, timedLoop, type BenchServer } from "./bench-support";
import type { Proc } from "../support/processes";

export const FILES_SETTINGS = ["BENCH_FILES_MIB", "BENCH_FILES_ROUNDS", "BENCH_FILES_SECONDS", "BENCH_FILES_NODE_OPTIONS"];

const FILE_MIB = Number(process.env.BENCH_FILES_MIB ?? 25);
const ROUNDS = Number(process.env.BENCH_FILES_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_FILES_SECONDS ?? 10);
const CONCURRENT = 20;
const CONCURRENT_MIB = 5;
const IMAGE_CLIENTS = 4;
const MIB = 1024 * 1024;
const CHUNK_KIB = 255;

export interface Memory {
	before: number;
	peak: number;
	after: number;
}

/** RSS of the gateway's process, then the uploads service's if it has one of its own. */
type Processes = Memory[];

export interface FilesFigure {
	topology: string;
	/** RSS during the measured upload, its download, and the concurrent uploads. */
	rss: { upload: Processes; download: Processes; concurrent: Processes };
	/** V8's young generation and the Buffers' memory (live or garbage) during the measured upload, as `rss.upload`. */
	parts: Record<Part, Processes>;
	/** In use after a full collection (heap and external memory), gateway then uploads. */
	live: Memory[];
	/** Why `live` is empty. */
	liveFailure: string;
	uploadMBs: number;
	downloadMBs: number;
	concurrent: { ok: number; failed: string[]; seconds: number };
	image: { bytes: number; p50: number; p99: number; rps: number; failed: number };
}

/** A process's resident set in bytes (0 once it is gone). */
function rss(pid: number): number {
	try {
		const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
		return m ? Number(m[1]) * 1024 : 0;
	} catch {
		return 0;
	}
}

type Part = "young" | "buffers";

/** The sizes of `part` a gc-probe.cjs reported in `output`. */
function partReports(output: string, part: Part): number[] {
	return [...output.matchAll(/gc-probe young=(\d+) buffers=(\d+)/g)].map((m) => Number(m[part === "young" ? 1 : 2]));
}

/** V8's young generation and the Buffers' memory, without collecting: before, at most during (every 100 ms) and 1 s after `during`. */
async function partsSampled(procs: Proc[], during: () => Promise<void>): Promise<Record<Part, Memory[]>> {
	const ask = async () => {
		const marks = procs.map((p) => p.output().length);
		procs.forEach((p) => p.child.kill("SIGWINCH"));
		await sleep(200);
		return marks;
	};
	const last = (marks: number[], part: Part) => procs.map((p, i) => partReports(p.output().slice(marks[i]), part).at(-1) ?? 0);
	const beforeMarks = await ask();
	const marks = procs.map((p) => p.output().length);
	const timer = setInterval(() => procs.forEach((p) => p.child.kill("SIGWINCH")), 100);
	try {
		await during();
	} finally {
		clearInterval(timer);
	}
	await sleep(200);
	const duringEnd = procs.map((p) => p.output().length);
	await sleep(800);
	const afterMarks = await ask();
	const of = (part: Part): Memory[] => {
		const before = last(beforeMarks, part);
		const after = last(afterMarks, part);
		return procs.map((p, i) => ({ before: before[i], peak: Math.max(before[i], ...partReports(p.output().slice(marks[i], duringEnd[i]), part)), after: after[i] }));
	};
	return { young: of("young"), buffers: of("buffers") };
}

/** Samples the processes' RSS every 20 ms while `during` runs. */
async function sampled(pids: number[], during: () => Promise<void>): Promise<Memory[]> {
	const before = pids.map(rss);
	const peak = [...before];
	const timer = setInterval(() => pids.forEach((pid, i) => (peak[i] = Math.max(peak[i], rss(pid)))), 20);
	try {
		await during();
	} finally {
		clearInterval(timer);
	}
	pids.forEach((pid, i) => (peak[i] = Math.max(peak[i], rss(pid))));
	await sleep(1000);
	return pids.map((pid, i) => ({ before: before[i], peak: peak[i], after: rss(pid) }));
}

/** What the process's gc-probe.cjs reported since `from` (its output's length then): heap + external bytes. */
function probed(proc: Proc, from: number): number[] {
	return [...proc.output().slice(from).matchAll(/gc-probe rss=\d+ heap=(\d+) external=(\d+)/g)].map((m) => Number(m[1]) + Number(m[2]));
}

/** Memory in use after a full collection, before, at most during (every second) and after `during`. */
async function liveSampled(procs: Proc[], during: () => Promise<void>): Promise<Memory[]> {
	const probe = async () => {
		const marks = procs.map((p) => p.output().length);
		// Three collections, and more while a node has not reported (a loaded machine delays it).
		for (let i = 0; i < 10 && (i < 3 || procs.some((p, j) => probed(p, marks[j]).length === 0)); i++) {
			procs.forEach((p) => p.child.kill("SIGUSR2"));
			await sleep(300);
		}
		return procs.map((p, i) => probed(p, marks[i]).at(-1) ?? 0);
	};
	const before = await probe();
	const marks = procs.map((p) => p.output().length);
	const timer = setInterval(() => procs.forEach((p) => p.child.kill("SIGUSR2")), 1000);
	try {
		await during();
	} finally {
		clearInterval(timer);
	}
	await sleep(500);
	const peak = procs.map((p, i) => Math.max(before[i], ...probed(p, marks[i])));
	await sleep(500);
	const after = await probe();
	return procs.map((_, i) => ({ before: before[i], peak: peak[i], after: after[i] }));
}

async function upload(server: BenchServer, name: string, data: Uint8Array, type: string): Promise<string> {
	const form = new FormData();
	form.append("file", new Blob([data], { type }), name);
	const t = Date.now();
	const res = await fetch(`${server.base}/user_uploads`, { method: "POST", body: form, headers: server.auth }).catch((err: Error) => {
		throw new Error(`POST /user_uploads of ${name}: ${err.message} after ${Date.now() - t} ms (${String(err.cause)})`);
	});
	const body = (await res.json()) as { result: string; url?: string; msg?: string };
	if (res.status !== 200 || body.result !== "success" || !body.url) throw new Error(`POST /user_uploads: HTTP ${res.status}, ${body.msg ?? body.result}`);
	return body.url;
}

async function download(server: BenchServer, url: string): Promise<Buffer> {
	const res = await fetch(`${server.base.replace(/\/api\/v1$/, "")}${url}`, { headers: server.auth });
	const body = Buffer.from(await res.arrayBuffer());
	if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status}`);
	return body;
}

async function roundTrip(server: BenchServer, name: string, data: Buffer): Promise<void> {
	const url = await upload(server, name, data, "application/octet-stream");
	if (!(await download(server, url)).equals(data)) throw new Error(`${name}: read back different bytes`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mbPerSecond = (bytes: number, ms: number) => Math.round((bytes / 1e6 / (ms / 1000)) * 10) / 10;

const PROBE = `--expose-gc --require ${path.join(__dirname, "gc-probe.cjs")} ${process.env.BENCH_FILES_NODE_OPTIONS ?? ""}`.trim();

async function measure(topology: string, nodes: Array<Record<string, string>>, common: Record<string, string>, work: string, who: { gateway: number; uploads: number }): Promise<FilesFigure> {
	for (const i of new Set([who.gateway, who.uploads])) nodes[i] = { ...nodes[i], NODE_OPTIONS: PROBE };
	const port = await freePort();
	const shared = { ...common, DB_PREFIX: `b${randomBytes(4).toString("hex")}`, DATA_DIR: path.join(work, `files-${port}`), PORT: String(port), MAX_FILE_UPLOAD_SIZE_MIB: String(Math.max(25, FILE_MIB)) };
	const server = await startBenchNodes(nodes, shared, port);
	try {
		const big = randomBytes(FILE_MIB * MIB);
		// A warm-up of the same size: the code paths compiled, the heaps at their working size.
		await roundTrip(server, "warm-up.bin", big);
		const pids = [...new Set([who.gateway, who.uploads])].map((i) => server.procs[i].child.pid!);
		process.stderr.write(`files (${topology}): sampling memory during a ${FILE_MIB} MiB upload\n`);
		let url = "";
		const measuredProcs = [...new Set([who.gateway, who.uploads])].map((i) => server.procs[i]);
		let uploadRss: Memory[] = [];
		const parts = await partsSampled(measuredProcs, async () => {
			uploadRss = await sampled(pids, async () => {
				url = await upload(server, "measured.bin", big, "application/octet-stream");
			});
		});
		const downloadRss = await sampled(pids, async () => {
			if (!(await download(server, url)).equals(big)) throw new Error("the measured upload read back different bytes");
		});
		// Collections stall a process: on a busy machine one may miss the bus's heartbeats and
		// the upload fail, which leaves this figure out rather than the others.
		let liveFailure = "";
		const live = await liveSampled(measuredProcs, async () => {
			await upload(server, "measured-live.bin", big, "application/octet-stream");
		}).catch((err: unknown) => ((liveFailure = err instanceof Error ? err.message : String(err)), []));

		const ups: number[] = [];
		const downs: number[] = [];
		for (let i = 0; i < ROUNDS; i++) {
			let t = Date.now();
			const u = await upload(server, `round-${i}.bin`, big, "application/octet-stream");
			ups.push(Date.now() - t);
			t = Date.now();
			const got = await download(server, u);
			downs.push(Date.now() - t);
			if (!got.equals(big)) throw new Error(`round ${i}: read back different bytes`);
		}

		process.stderr.write(`files (${topology}): ${CONCURRENT} concurrent ${CONCURRENT_MIB} MiB uploads\n`);
		const failed: string[] = [];
		const files = Array.from({ length: CONCURRENT }, () => randomBytes(CONCURRENT_MIB * MIB));
		let results: boolean[] = [];
		let concurrentSeconds = 0;
		const concurrentRss = await sampled(pids, async () => {
			const t = Date.now();
			results = await Promise.all(
				files.map((file, i) =>
					roundTrip(server, `concurrent-${i}.bin`, file).then(
						() => true,
						(err: unknown) => (failed.push(err instanceof Error ? err.message : String(err)), false),
					),
				),
			);
			concurrentSeconds = Math.round((Date.now() - t) / 100) / 10;
		});

		// A 100 KB PNG of noise (which does not compress).
		const png = await sharp(randomBytes(185 * 180 * 3), { raw: { width: 185, height: 180, channels: 3 } }).png().toBuffer();
		const imageUrl = await upload(server, "noise.png", png, "image/png");
		let imageFailed = 0;
		process.stderr.write(`files (${topology}): ${IMAGE_CLIENTS} clients reading a ${Math.round(png.length / 1000)} KB image for ${SECONDS} s\n`);
		const loop = await timedLoop(
			() =>
				download(server, imageUrl).then(
					(b) => (b.equals(png) ? undefined : imageFailed++),
					() => imageFailed++,
				),
			IMAGE_CLIENTS,
			SECONDS,
		);
		return {
			topology,
			rss: { upload: uploadRss, download: downloadRss, concurrent: concurrentRss },
			parts,
			live,
			liveFailure,
			uploadMBs: mbPerSecond(big.length, median(ups)),
			downloadMBs: mbPerSecond(big.length, median(downs)),
			concurrent: { ok: results.filter(Boolean).length, failed, seconds: concurrentSeconds },
			image: { bytes: png.length, p50: loop.p50, p99: loop.p99, rps: Math.round(loop.rps), failed: imageFailed },
		};
	} catch (err) {
		process.stderr.write(`the server's last words:\n${server.procs.map((p) => p.output().slice(-3000)).join("\n---\n")}\n`);
		throw err;
	} finally {
		await server.stop();
	}
}

/** The two topologies, one after the other. */
export async function filesFigures(common: Record<string, string>, natsUrl: string, work: string): Promise<FilesFigure[]> {
	const rest = Object.keys(SERVICES)
		.filter((n) => n !== "api" && n !== "uploads")
		.join(",");
	const overNats = { ...common, TRANSPORTER: natsUrl };
	return [
		await measure("one process", [{}], common, work, { gateway: 0, uploads: 0 }),
		await measure("api, uploads, the rest: 3 processes over NATS", [{ SERVICES: rest }, { SERVICES: "uploads" }, { SERVICES: "api" }], overNats, work, { gateway: 2, uploads: 1 }),
	];
}

const mib = (bytes: number) => (bytes / MIB).toFixed(1);
const growth = (m: Memory) => `${mib(m.before)} / ${mib(m.peak)} / ${mib(m.after)} (+${mib(m.peak - m.before)})`;

export function filesTable(figures: FilesFigure[], info: { command: string; cores: number; store: string }): string {
	const memory = [["topology", "during", "gateway RSS MiB before / peak / after (growth)", "uploads RSS MiB before / peak / after (growth)", "RSS growth in 255 KiB chunks (largest)"]];
	const phases = { upload: `one ${FILE_MIB} MiB upload`, download: "its download", concurrent: `${CONCURRENT} x ${CONCURRENT_MIB} MiB up+down` } as const;
	const live = [["topology", "gateway in use after GC, MiB before / peak / after (growth)", "uploads in use after GC (growth)", "growth in 255 KiB chunks (largest)"]];
	const speed = [["topology", `upload MB/s (${FILE_MIB} MiB)`, "download MB/s", `${CONCURRENT} x ${CONCURRENT_MIB} MiB up+down: ok / failed / s`, "100 KB image, 4 clients: p50 ms", "p99 ms", "req/s", "failed"]];
	for (const f of figures) {
		for (const phase of ["upload", "download", "concurrent"] as const) {
			const [gateway, uploads] = f.rss[phase];
			const most = Math.max(...f.rss[phase].map((m) => m.peak - m.before));
			memory.push([f.topology, phases[phase], growth(gateway), uploads ? growth(uploads) : "(the gateway's process)", (most / (CHUNK_KIB * 1024)).toFixed(1)]);
		}
		for (const [part, label] of [["young", "the upload: V8's young generation"], ["buffers", "the upload: Buffers"]] as const) {
			const [gateway, uploads] = f.parts[part];
			const most = Math.max(...f.parts[part].map((m) => m.peak - m.before));
			memory.push([f.topology, label, growth(gateway), uploads ? growth(uploads) : "(the gateway's process)", (most / (CHUNK_KIB * 1024)).toFixed(1)]);
		}
		const mostLive = Math.max(...f.live.map((m) => m.peak - m.before));
		if (f.live.length) live.push([f.topology, growth(f.live[0]), f.live[1] ? growth(f.live[1]) : "(the gateway's process)", (mostLive / (CHUNK_KIB * 1024)).toFixed(1)]);
		else live.push([f.topology, `not measured: ${f.liveFailure}`, "", ""]);
		speed.push([
			f.topology,
			String(f.uploadMBs),
			String(f.downloadMBs),
			`${f.concurrent.ok} / ${f.concurrent.failed.length} / ${f.concurrent.seconds}`,
			String(f.image.p50),
			String(f.image.p99),
			String(f.image.rps),
			String(f.image.failed),
		]);
	}
	const failures = figures.flatMap((f) => f.concurrent.failed.map((m) => `  ${f.topology}: ${m}`));
	return [
		`Files: memory during one ${FILE_MIB} MiB POST /user_uploads (after a warm-up upload of the same size), its download and concurrent uploads, and transfer speeds (${info.cores} cores, store: ${info.store}${process.env.BENCH_FILES_NODE_OPTIONS ? `, server nodes run with ${process.env.BENCH_FILES_NODE_OPTIONS}` : ""})`,
		`command: ${info.command}`,
		"",
		formatTable(memory),
		"",
		formatTable(live),
		"",
		formatTable(speed),
		...(failures.length ? ["", "failures:", ...failures] : []),
	].join("\n");
}
