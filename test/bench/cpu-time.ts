// CPU time of other processes, for the bench's CPU-per-request figures: user + system time of a
// process and every descendant (a node started through `tsx` is a child of the tsx process), read
// from /proc/<pid>/stat, which counts all of a process's threads (the garbage collector's too).
import fs from "node:fs";
import os from "node:os";

const TICK_NS = 1e9 / 100; // USER_HZ is 100 on Linux.

interface Stat {
	ppid: number;
	/** utime + stime, in clock ticks. */
	ticks: number;
}

function readStat(pid: number): Stat | undefined {
	let text: string;
	try {
		text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
	} catch {
		return undefined;
	}
	// The command name, in parentheses, may itself hold spaces and parentheses.
	const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
	// fields[0] is field 3 of proc(5): state; ppid is field 4, utime 14, stime 15.
	return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
}

/** `roots` and all their descendants alive now. */
export function processTree(roots: number[]): number[] {
	const children = new Map<number, number[]>();
	for (const name of fs.readdirSync("/proc")) {
		if (!/^\d+$/.test(name)) continue;
		const s = readStat(Number(name));
		if (!s) continue;
		const list = children.get(s.ppid) ?? [];
		list.push(Number(name));
		children.set(s.ppid, list);
	}
	const out: number[] = [];
	const todo = [...roots];
	while (todo.length) {
		const pid = todo.pop()!;
		out.push(pid);
		todo.push(...(children.get(pid) ?? []));
	}
	return out;
}

/** CPU nanoseconds used so far by `pids` (each on its own, not its children). */
export function cpuNs(pids: number[]): number {
	return pids.reduce((sum, pid) => sum + (readStat(pid)?.ticks ?? 0), 0) * TICK_NS;
}

/** Measures the CPU `groups` of processes use while `work` runs (trees taken when it starts). */
export async function cpuDuring<T>(groups: Record<string, number[]>, work: () => Promise<T>): Promise<{ result: T; cpuNs: Record<string, number> }> {
	if (os.platform() !== "linux") throw new Error("CPU time per request is read from /proc: Linux only");
	const trees = Object.fromEntries(Object.entries(groups).map(([k, roots]) => [k, processTree(roots)]));
	const before = Object.fromEntries(Object.entries(trees).map(([k, pids]) => [k, cpuNs(pids)]));
	const result = await work();
	const used = Object.fromEntries(Object.entries(trees).map(([k, pids]) => [k, cpuNs(pids) - before[k]]));
	return { result, cpuNs: used };
}
