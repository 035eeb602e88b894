// The index coverage test (npm run test:indexes): run after the API suites, on the query log they
// wrote (QUERY_LOG). It needs no store, so it has no global setup.
module.exports = {
	rootDir: "../..",
	testEnvironment: "node",
	transform: { "^.+\\.ts$": ["@swc/jest"] },
	testMatch: ["<rootDir>/test/indexes/**/*.test.ts"],
	reporters: ["default", "<rootDir>/test/support/summary-reporter.js"],
};
