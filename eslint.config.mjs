// Lint rules: typescript-eslint's recommended set, plus the project's own rule that services log
// through pino (Moleculer's logger), never the console.
import tseslint from "typescript-eslint";

export default tseslint.config(
	{ ignores: ["node_modules/**", "data/**", "deploy/embedded-store/bin/**", "coverage/**"] },
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
);
