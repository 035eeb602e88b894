// How often one user may report: REPORTS_PER_HOUR per clock hour. Zulip has no limit of its own
// beyond the general API rate limit; a report pings every moderator, so this service adds one.
// The report document is the claim: it takes a slot `<reporter>:<hour>:<n>` under a unique
// index, so concurrent reports from any number of replicas never exceed the quota.
import type { Model } from "mongoose";
import { isDuplicateKey } from "../../shared/db";
import { rateLimited } from "../../shared/errors";
import type { ReportDoc } from "./models/report";

export const REPORTS_PER_HOUR = 10;

/** Inserts the report into a free slot of the reporter's hour, or refuses with 429. */
export async function insertWithinQuota(Report: Model<ReportDoc>, report: Omit<ReportDoc, "quota_window" | "quota_key">): Promise<ReportDoc> {
	const window = Math.floor(report.timestamp / 3600);
	const taken = await Report.countDocuments({ reporter_id: report.reporter_id, quota_window: window });
	for (let slot = taken; slot < REPORTS_PER_HOUR; slot++) {
		const doc: ReportDoc = { ...report, quota_window: window, quota_key: `${report.reporter_id}:${window}:${slot}` };
		try {
			await Report.create(doc);
			return doc;
		} catch (err) {
			// Another report took this slot a moment ago: try the next one.
			if (!isDuplicateKey(err)) throw err;
		}
	}
	throw rateLimited((window + 1) * 3600 - report.timestamp);
}
