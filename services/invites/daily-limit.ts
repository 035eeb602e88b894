// The organization's daily invitation limit (INVITES_DAILY_LIMIT, Zulip's max_invites). Zulip
// counts the invitations of the last 24 hours; we count per UTC day, so that taking n invitations
// from the day's budget is one conditional `$inc` of the day's document, matching only while the
// count leaves room for n. The day's document is created once (an insert that may lose to another
// on the unique _id), never by an upsert: racing upserts of a new document are answered
// differently by each engine (MongoDB's E11000 refused one of two first invitations of a day as
// over the limit; FerretDB may lose an increment).
import type { Model } from "mongoose";
import { clock } from "../../shared/clock";
import { createOnce } from "../../shared/db";
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
	const day = today();
	const take = async () => (await Quota.updateOne({ _id: day, count: { $lte: limit - n } }, { $inc: { count: n } })).matchedCount > 0;
	if (await take()) return;
	// Nothing matched: the day's first invitations (no document yet), or no room left.
	await createOnce(Quota, { _id: day, count: 0 });
	if (!(await take())) throw dailyLimitReached();
}
