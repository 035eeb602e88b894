// Prints one closing line in the plain form CI reads: "jest: N passed, N failed, N skipped".
class SummaryReporter {
	onRunComplete(_contexts, results) {
		process.stdout.write(
			`jest: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests + results.numTodoTests} skipped\n`,
		);
	}
}
module.exports = SummaryReporter;
