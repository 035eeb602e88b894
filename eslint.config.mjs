// Lint rules: typescript-eslint's recommended set, plus the project's own rule that services log
// through pino (Moleculer's logger), never the console.
import tseslint from "typescript-eslint";

export default tseslint.config(
	{ ignores: ["node_modules/**", "data/**", "deploy/embedded-store/bin/**", "coverage/**", "dist/**"] },
	...tseslint.configs.recommended,
	{
		rules: {
			"@typescript-eslint/no-explicit-any": "off",
			"@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
		},
	},
	{
		// Jest's reporters and configs are CommonJS.
		files: ["**/*.js"],
		rules: { "@typescript-eslint/no-require-imports": "off" },
	},
	{
		files: ["services/**/*.ts", "shared/**/*.ts"],
		rules: { "no-console": "error" },
	},
	{
		// A service calls another through shared/actions.ts's typed `call` (the bus contract),
		// never `ctx.call` or `broker.call` by name. The gateway calls the action a route names.
		files: ["services/**/*.ts"],
		ignores: ["services/api/**"],
		rules: {
			"no-restricted-syntax": [
				"error",
				...["callee.object.name=/^(ctx|broker)$/", "callee.object.property.name=/^(broker|\\$ctx)$/"].map((object) => ({
					selector: `CallExpression[callee.property.name='call'][${object}]`,
					message: "Call another service with call() from shared/actions.ts, its action declared in ActionMap.",
				})),
			],
		},
	},
);
