// The page-at-a-time join behind keyword search in a user's own history: the lead (the search
// index) is read past page after page until enough of its IDs are kept (the user's rows).
import { joined, type Window } from "../../services/messages/fetch-rules";

/** A lead over IDs 1..100 that records each bound it was asked for. */
function lead(bounds: object[]): Window {
	const all = Array.from({ length: 100 }, (_, i) => i + 1);
	return async (cond, dir, limit) => {
		bounds.push(cond);
		const c = cond as { $lt?: number; $gt?: number; $in?: number[] };
		const match = all.filter((id) => (c.$lt === undefined || id < c.$lt) && (c.$gt === undefined || id > c.$gt) && (c.$in === undefined || c.$in.includes(id)));
		return (dir === 1 ? match : match.reverse()).slice(0, limit);
	};
}
const multiplesOf = (n: number) => async (ids: number[]) => new Set(ids.filter((id) => id % n === 0));

test("reads past pages that keep too few, newest first", async () => {
	const bounds: object[] = [];
	const window = joined(lead(bounds), multiplesOf(10), 7);
	expect(await window({ $lt: 95 }, -1, 3)).toEqual([90, 80, 70]);
	expect(bounds).toEqual([{ $lt: 95 }, { $lt: 88 }, { $lt: 81 }, { $lt: 74 }]);
});

test("oldest first, stopping at the end of the lead", async () => {
	const bounds: object[] = [];
	const window = joined(lead(bounds), multiplesOf(40), 30);
	expect(await window({ $gt: 0 }, 1, 5)).toEqual([40, 80]);
	expect(bounds).toEqual([{ $gt: 0 }, { $gt: 30 }, { $gt: 60 }, { $gt: 90 }]);
});

test("a list of IDs keeps its own condition on every page", async () => {
	const bounds: object[] = [];
	const window = joined(lead(bounds), multiplesOf(2), 2);
	expect(await window({ $in: [3, 4, 5, 6, 8] }, 1, 5)).toEqual([4, 6, 8]);
	expect(bounds).toEqual([{ $in: [3, 4, 5, 6, 8] }, { $in: [3, 4, 5, 6, 8], $gt: 4 }, { $in: [3, 4, 5, 6, 8], $gt: 6 }]);
});
