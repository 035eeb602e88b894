// The import checks (`npm run lint` runs them, so `npm test` does): no module may import, through
// any chain, a module that imports it, type-only imports included; no service imports another
// (they talk through the broker; what two of them need lives in shared/); shared/ imports no
// service.
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
		{
			name: "no-service-imports-another",
			comment:
				"A service imports no other service's modules: they talk only through the broker (shared/actions.ts), and what two of them need moves to shared/. deploy/ and test/ may import services.",
			severity: "error",
			from: { path: "^services/([^/]+)/" },
			to: { path: "^services/", pathNot: ["^services/$1/", "^node_modules/"] },
		},
		{
			name: "no-shared-imports-a-service",
			comment: "shared/ is what every service uses: it imports none of them.",
			severity: "error",
			from: { path: "^shared/" },
			to: { path: "^services/" },
		},
	],
	options: {
		doNotFollow: { path: "node_modules" },
		exclude: { path: "node_modules" },
		tsPreCompilationDeps: true,
		tsConfig: { fileName: "tsconfig.json" },
	},
};
