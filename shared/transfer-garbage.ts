// Moving a file's bytes leaves short-lived Buffers behind in each process they pass (socket reads,
// the driver's BSON of each chunk, the bus's packets). V8 frees a Buffer's memory only when it
// collects the small object holding it, and it collects on account of memory outside its heap
// only after tens of MiB more were allocated there, so meanwhile a 25 MiB transfer grew a process's
// resident set by up to 90 chunks. A minor collection (a scavenge of the young generation, about a
// millisecond) every few MiB moved frees them while they are young: the growth stays a few chunks.
//
// Moving a whole organization (import-zulip, export-zulip) leaves each message file's parsed
// rows behind, which live across the file's writes and so reach V8's old generation, collected
// only when it grows past a limit V8 raises as it goes: a 200,000-message import peaked at
// 456 MiB where 20,000 took 341. A full collection every few message files keeps it level.
//
// Both need node's --expose-gc, which npm start and the image give (package.json's `start`), and
// `npm run manage` (its NODE_OPTIONS); without it (a test process) nothing happens.
const EVERY_BYTES = 4 * 1024 * 1024;
const EVERY_FILES = 4;

let moved = 0;
let files = 0;
const collect = (globalThis as { gc?: (options?: { type: "minor" | "major" }) => void }).gc;

/** Counts `bytes` moved through this process; every EVERY_BYTES, a minor collection. */
export function transferred(bytes: number): void {
	moved += bytes;
	if (moved < EVERY_BYTES) return;
	moved = 0;
	collect?.({ type: "minor" });
}

/** Counts one message file imported or exported; every EVERY_FILES, a full collection. */
export function messageFileMoved(): void {
	if (++files % EVERY_FILES === 0) collect?.({ type: "major" });
}
