// The Go toolchain that builds the embedded store, found or installed without a download site:
// a `go` on PATH new enough to build it; otherwise Go's own distribution, which the Go module
// proxy serves as the module golang.org/toolchain (what `GOTOOLCHAIN` fetches), downloaded with
// any older `go`; otherwise, run as root on Debian, Debian's golang-go first to do that download.
import { execFileSync } from "node:child_process";
import fs from "node:fs";

/** The Go release the store is built with when the machine's own `go` is older. */
export const GO_TOOLCHAIN = "1.26.8";
/** The oldest Go that builds the store (its go.mod's `go` line). */
const MIN_GO: [number, number] = [1, 25];

/** A condition at start with a remedy the message names: printed as one line, no stack trace. */
export class StartupError extends Error {}

interface Log {
	info(...args: unknown[]): void;
}

function goVersion(go: string): [number, number] | undefined {
	try {
		const out = execFileSync(go, ["env", "GOVERSION"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, GOTOOLCHAIN: "local" } });
		const m = /go(\d+)\.(\d+)/.exec(out);
		return m ? [Number(m[1]), Number(m[2])] : undefined;
	} catch {
		try {
			// Go before 1.16 has no GOVERSION in `go env`.
			const m = /go(\d+)\.(\d+)/.exec(execFileSync(go, ["version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
			return m ? [Number(m[1]), Number(m[2])] : undefined;
		} catch {
			return undefined;
		}
	}
}

const newEnough = (v: [number, number] | undefined) => !!v && (v[0] > MIN_GO[0] || (v[0] === MIN_GO[0] && v[1] >= MIN_GO[1]));

function onPath(): string | undefined {
	for (const go of ["go", "/usr/local/go/bin/go", "/usr/lib/go/bin/go"]) if (goVersion(go)) return go;
	return undefined;
}

function aptInstallGo(log?: Log): boolean {
	const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
	if (!isRoot || !fs.existsSync("/usr/bin/apt-get")) return false;
	log?.info("Installing Go from Debian's packages (golang-go), to fetch the Go toolchain that builds the embedded store...");
	const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
	execFileSync("apt-get", ["update", "-qq"], { stdio: "ignore", env });
	execFileSync("apt-get", ["install", "-y", "-qq", "golang-go"], { stdio: "ignore", env });
	return true;
}

/** Downloads Go's distribution from the Go module proxy with an older `go`; returns its `go`. */
function toolchainFromProxy(oldGo: string, log?: Log): string {
	const arch = { x64: "amd64", arm64: "arm64" }[process.arch as string] ?? process.arch;
	const mod = `golang.org/toolchain@v0.0.1-go${GO_TOOLCHAIN}.${process.platform}-${arch}`;
	log?.info(`Fetching Go ${GO_TOOLCHAIN} from the Go module proxy (${mod}) to build the embedded store...`);
	const out = execFileSync(oldGo, ["mod", "download", "-json", mod], {
		encoding: "utf8",
		stdio: ["ignore", "pipe", "inherit"],
		env: { ...process.env, GOTOOLCHAIN: "local", GOFLAGS: "-modcacherw" },
	});
	const dir = (JSON.parse(out) as { Dir?: string }).Dir;
	const go = dir && `${dir}/bin/go`;
	if (!go || !fs.existsSync(go)) throw new StartupError(`The Go module proxy did not provide ${mod}.`);
	fs.chmodSync(go, 0o755);
	for (const tool of fs.readdirSync(`${dir}/pkg/tool`, { withFileTypes: true }))
		if (tool.isDirectory()) for (const f of fs.readdirSync(`${dir}/pkg/tool/${tool.name}`)) fs.chmodSync(`${dir}/pkg/tool/${tool.name}/${f}`, 0o755);
	return go;
}

/** A `go` command able to build the embedded store; throws StartupError with what to do. */
export function goForStore(log?: Log): string {
	let go = onPath();
	if (go && newEnough(goVersion(go))) return go;
	if (!go && aptInstallGo(log)) go = onPath();
	if (!go) {
		throw new StartupError(
			"The embedded store is built with Go, which is not installed: install Go (Debian: apt-get install golang-go), or set MONGO_URL to a MongoDB server.",
		);
	}
	try {
		return toolchainFromProxy(go, log);
	} catch (err) {
		if (err instanceof StartupError) throw err;
		throw new StartupError(`Go ${GO_TOOLCHAIN} could not be fetched from the Go module proxy (${(err as Error).message.split("\n")[0]}); install Go ${MIN_GO.join(".")} or newer, or set MONGO_URL to a MongoDB server.`);
	}
}
