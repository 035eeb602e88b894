// The organization's daily invitation limit (INVITES_DAILY_LIMIT, Zulip's max_invites). Zulip
// counts the invitations of the last 24 hours; we count per UTC day, so that taking n invitations
// from the day's budget is one conditional upsert, atomic on every store: it matches only while
// the count leaves room for n, and a day whose count is too high makes the upsert's insert fail on
// the duplicate _id.
import type { Model } from "mongoose";
import { clock } from "../../shared/clock";
import { isDuplicateKey } from "../../shared/db";
import type { InviteQuotaDoc } from "./models/invite-quota";
import { dailyLimitReached } from "./errors";

const today = () => new Date(clock.nowMs()).toISOString().slice(0, 10);

/** Refuses, without taking anything, when n more would pass the limit (Zulip checks every address first). */
export async function checkDailyLimit(Quota: Model<InviteQuotaDoc>, limit: number, n: number): Promise<void> {
	if (limit === 0) return;
	const used = (await Quota.findById(today()).lean())?.count ?? 0;
	if (used + n > limit) throw dailyLimitReached();
}

/** Takes n invitations from today's budget, or refuses. */
export async function takeFromDailyLimit(Quota: Model<InviteQuotaDoc>, limit: number, n: number): Promise<void> {
	if (limit === 0 || n === 0) return;
	if (n > limit) throw dailyLimitReached();
	try {
		await Quota.updateOne({ _id: today(), count: { $lte: limit - n } }, { $inc: { count: n } }, { upsert: true });
	} catch (err) {
		if (isDuplicateKey(err)) throw dailyLimitReached();
		throw err;
	}
}
