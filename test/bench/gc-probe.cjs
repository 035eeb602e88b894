// Loaded into the files bench's server nodes (NODE_OPTIONS="--expose-gc --require ..."): on
// SIGUSR2, a full garbage collection, then the memory still in use written to stderr, so the bench
// tells memory an upload holds from garbage not yet collected. Nothing happens without the signal.
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
}
