// Runs a full-screen terminal program inside a pseudo-terminal of a fixed size (a tiny driver on
// Python's `pty` module), so a test can read what it draws and type keys into it.
import { spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";

// The child gets the terminal's size before it starts; the parent relays the terminal's output
// to stdout and stdin to the terminal, and exits with the child's status.
const DRIVER = `
import fcntl, os, pty, select, struct, sys, termios
cols, rows, cmd = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    os.execvp(cmd[0], cmd)
inputs = [fd, 0]
while True:
    ready, _, _ = select.select(inputs, [], [])
    if fd in ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        if not data:
            break
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    if 0 in ready:
        data = os.read(0, 65536)
        if data:
            os.write(fd, data)
        else:
            inputs.remove(0)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
`;

/** Control sequences (CSI, OSC, charset and keypad selections) removed: the text drawn, run together. */
export function stripEscapes(output: string): string {
	return output.replace(/\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]/g, "");
}

export interface Terminal {
	/** What the program wrote so far (from a `mark()` on, if given), control sequences removed. */
	text(since?: number): string;
	/** A position in the output, to look only at what is drawn after it. */
	mark(): number;
	/** Polls the text (from `since` on) until `test` holds; fails with the text's end after `timeoutMs` (default 60 s: a hang bound). */
	waitFor(test: string | RegExp | ((text: string) => boolean), o?: { timeoutMs?: number; since?: number }): Promise<void>;
	/** Types into the terminal (keys as the bytes a terminal sends: "\x1b[C" is Right, "\x03" Ctrl+C). */
	type(keys: string): void;
	/** The exit code, once the program has exited; fails after `timeoutMs`. */
	exited(timeoutMs?: number): Promise<number | null>;
	kill(): void;
}

export function runInTerminal(python: string, command: string[], o: { cols: number; rows: number; cwd: string; env?: NodeJS.ProcessEnv }): Terminal {
	const child = spawn(python, ["-c", DRIVER, String(o.cols), String(o.rows), ...command], {
		cwd: o.cwd,
		env: { ...process.env, TERM: "xterm-256color", LANG: "C.UTF-8", LC_ALL: "C.UTF-8", ...o.env },
		stdio: ["pipe", "pipe", "pipe"],
	});
	const decoder = new StringDecoder("utf8");
	let raw = "";
	child.stdout.on("data", (chunk: Buffer) => (raw += decoder.write(chunk)));
	child.stderr.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
	const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
	let code: number | null | undefined;
	void exit.then((c) => (code = c));

	const text = (since = 0) => stripEscapes(raw.slice(since));
	const deadline = async (what: string, timeoutMs: number, done: () => boolean) => {
		const end = Date.now() + timeoutMs;
		while (!done()) {
			if (Date.now() > end) throw new Error(`no ${what} within ${timeoutMs} ms; the terminal's last output:\n${text().slice(-3000)}`);
			if (code !== undefined) throw new Error(`the program exited (${code}) before ${what}; its last output:\n${text().slice(-3000)}`);
			await new Promise((r) => setTimeout(r, 100));
		}
	};
	return {
		text,
		mark: () => raw.length,
		async waitFor(test, { timeoutMs = 60_000, since = 0 } = {}) {
			const holds = typeof test === "string" ? (t: string) => t.includes(test) : test instanceof RegExp ? (t: string) => test.test(t) : test;
			await deadline(typeof test === "function" ? "the expected text" : JSON.stringify(String(test)), timeoutMs, () => holds(text(since)));
		},
		type(keys) {
			child.stdin.write(keys);
		},
		async exited(timeoutMs = 60_000) {
			const end = Date.now() + timeoutMs;
			while (code === undefined) {
				if (Date.now() > end) throw new Error(`the program did not exit within ${timeoutMs} ms; its last output:\n${text().slice(-3000)}`);
				await new Promise((r) => setTimeout(r, 100));
			}
			return code;
		},
		kill() {
			if (code === undefined) child.kill("SIGKILL");
		},
	};
}
