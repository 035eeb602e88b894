// Moving a file's bytes leaves short-lived Buffers behind in each process they pass (socket reads,
// the driver's BSON of each chunk, the bus's packets). V8 frees a Buffer's memory only when it
// collects the small object holding it, and it collects on account of memory outside its heap
// only after tens of MiB more were allocated there, so meanwhile a 25 MiB transfer grew a process's
// resident set by up to 90 chunks. A minor collection (a scavenge of the young generation, about a
// millisecond) every few MiB moved frees them while they are young: the growth stays a few chunks.
//
// It needs node's --expose-gc, which npm start and the image give (package.json's `start`);
// without it (a test process, a tool) nothing happens.
const EVERY_BYTES = 4 * 1024 * 1024;

let moved = 0;
const collect = (globalThis as { gc?: (options: { type: "minor" }) => void }).gc;

/** Counts `bytes` moved through this process; every EVERY_BYTES, a minor collection. */
export function transferred(bytes: number): void {
	moved += bytes;
	if (moved < EVERY_BYTES) return;
	moved = 0;
	collect?.({ type: "minor" });
}
