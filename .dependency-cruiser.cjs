// The import-cycle check (`npm run lint` runs it, so `npm test` does): no module may import,
// through any chain, a module that imports it, type-only imports included.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
	forbidden: [
		{
			name: "no-circular",
			comment: "Import cycles: move what both sides need into a module of its own.",
			severity: "error",
			from: {},
			to: { circular: true },
		},
	],
	options: {
		doNotFollow: { path: "node_modules" },
		exclude: { path: "node_modules" },
		tsPreCompilationDeps: true,
		tsConfig: { fileName: "tsconfig.json" },
	},
};
