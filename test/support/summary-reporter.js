// Prints one closing line in the plain form CI reads: "jest: N passed, N failed, N skipped".
// `npm test` runs jest twice (the suites, then the index test on their query log); with
// TEST_SUMMARY_FILE set, each run adds its counts to that file and prints the running total, so
// the last line counts every test.
const fs = require("node:fs");

class SummaryReporter {
	onRunComplete(_contexts, results) {
		const total = { passed: results.numPassedTests, failed: results.numFailedTests, skipped: results.numPendingTests + results.numTodoTests };
		const file = process.env.TEST_SUMMARY_FILE;
		if (file) {
			try {
				const before = JSON.parse(fs.readFileSync(file, "utf8"));
				for (const k of Object.keys(total)) total[k] += before[k] ?? 0;
			} catch {
				/* the first run (an empty file): nothing to add */
			}
			fs.writeFileSync(file, JSON.stringify(total));
		}
		process.stdout.write(`jest: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`);
	}
}
module.exports = SummaryReporter;
