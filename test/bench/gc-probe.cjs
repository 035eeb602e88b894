// Loaded into the files bench's server nodes (NODE_OPTIONS="--expose-gc --require ..."): on
// SIGUSR2, a full garbage collection, then the memory still in use written to stderr, so the bench
// tells memory an upload holds from garbage not yet collected; on SIGWINCH, without collecting,
// the size of V8's young generation (its new spaces' physical size) and of the Buffers' memory
// (live or garbage), to tell their growth from the rest of the resident set's. Nothing happens
// without a signal.
const v8 = process.getBuiltinModule("node:v8");

const youngBytes = () =>
	v8
		.getHeapSpaceStatistics()
		.filter((s) => s.space_name === "new_space" || s.space_name === "new_large_object_space")
		.reduce((sum, s) => sum + s.physical_space_size, 0);

if (typeof globalThis.gc === "function") {
	process.on("SIGUSR2", () => {
		globalThis.gc();
		// The memory of collected Buffers is given back by a task of its own after the collection:
		// a second one a moment later counts only what is still held.
		setTimeout(() => {
			globalThis.gc();
			const m = process.memoryUsage();
			process.stderr.write(`gc-probe rss=${m.rss} heap=${m.heapUsed} external=${m.external}\n`);
		}, 20);
	});
	process.on("SIGWINCH", () => process.stderr.write(`gc-probe young=${youngBytes()} buffers=${process.memoryUsage().arrayBuffers}\n`));
}
