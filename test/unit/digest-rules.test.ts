// The weekly digest's rules, as Zulip's zerver/lib/digest.py has them: which topics are hot (the
// two with the most human senders, then the longest up to four, ties in the order topics started),
// bots counting for nothing, Zulip's display_list, and the weekday numbering (Monday 0).
import { hotTopics, weighTopics, type Sender } from "../../services/notifications/digest/hot-topics";
import { displayList } from "../../services/notifications/digest/digest-email";
import { zulipWeekday } from "../../services/notifications/digest/digest-pass";
import type { DigestTopicStats } from "../../shared/digest";

const people = new Map<number, Sender>([
	[1, { full_name: "Ann", is_bot: false }],
	[2, { full_name: "Bea", is_bot: false }],
	[3, { full_name: "Cy", is_bot: false }],
	[4, { full_name: "Ann", is_bot: false }], // a second Ann: one name, as Zulip's set of names
	[9, { full_name: "Bot", is_bot: true }],
]);
let nextId = 1;
const topic = (channel_id: number, topic_key: string, senders: Array<[number, number]>): DigestTopicStats => ({ channel_id, topic_key, first_id: nextId++, senders });

test("bots count for nothing; participants are sorted distinct names", () => {
	const [t] = weighTopics([topic(1, "a", [[9, 50], [2, 1], [1, 2], [4, 1]])], people);
	expect(t.participants).toEqual(["Ann", "Bea"]);
	expect(t.length).toBe(4);
});

test("the two most diverse topics, then the longest, at most four; ties keep the order topics started", () => {
	const topics = weighTopics(
		[
			topic(1, "long", [[1, 30]]),
			topic(1, "wide", [[1, 1], [2, 1], [3, 1]]),
			topic(1, "pair", [[1, 1], [2, 1]]),
			topic(1, "pair too", [[1, 1], [2, 1]]),
			topic(1, "medium", [[3, 10]]),
			topic(1, "short", [[3, 5]]),
			topic(2, "elsewhere", [[1, 1], [2, 1], [3, 1], [9, 100]]),
		],
		people,
	);
	expect(hotTopics(topics, new Set([1])).map((t) => t.stats.topic_key)).toEqual(["wide", "pair", "long", "medium"]);
	expect(hotTopics(topics, new Set([2])).map((t) => t.stats.topic_key)).toEqual(["elsewhere"]);
	expect(hotTopics(topics, new Set([3]))).toEqual([]);
});

test("a diverse topic that is also among the longest is shown once; the fifth is left out", () => {
	const topics = weighTopics([topic(1, "a", [[1, 9], [2, 9]]), topic(1, "b", [[1, 8], [3, 8]]), topic(1, "c", [[1, 7]]), topic(1, "d", [[1, 6]]), topic(1, "e", [[1, 1]])], people);
	expect(hotTopics(topics, new Set([1])).map((t) => t.stats.topic_key)).toEqual(["a", "b", "c", "d"]);
});

test("display_list", () => {
	expect(displayList(["a"], 4)).toBe("a");
	expect(displayList(["a", "b"], 4)).toBe("a and b");
	expect(displayList(["a", "b", "c", "d"], 4)).toBe("a, b, c and d");
	expect(displayList(["a", "b", "c", "d", "e"], 4)).toBe("a, b, c, d and 1 other");
	expect(displayList(["a", "b", "c", "d", "e", "f"], 4)).toBe("a, b, c, d and 2 others");
});

test("weekdays as Python's weekday(): Monday 0, Sunday 6, in UTC", () => {
	expect(zulipWeekday(Date.UTC(2016, 0, 5, 12))).toBe(1); // Tuesday, Zulip's test day
	expect(zulipWeekday(Date.UTC(2016, 0, 4, 0))).toBe(0);
	expect(zulipWeekday(Date.UTC(2016, 0, 10, 23, 59))).toBe(6);
});
