import mongoose from "mongoose";
import { filterShape } from "../../shared/query-log";
import { messageModel } from "../../services/messages/models/message";
import { parseSearch, SEARCH_INDEX, searchFilter } from "../../services/messages/search";
import { servedByIndex, type Filter, type IndexSpec } from "../indexes/index-rules";

const ix = (key: Record<string, number>, unique = false): IndexSpec => ({ key, unique });
const served = (filter: Filter, sort: Record<string, number> | undefined, indexes: IndexSpec[]) => servedByIndex({ filter, sort }, indexes).served;

const userMessages = [ix({ user_id: 1, message_id: 1 }, true), ix({ user_id: 1, channel_id: 1, topic_key: 1, message_id: 1 }), ix({ user_id: 1, flags: 1, message_id: 1 }), ix({ message_id: 1 })];

describe("equality, sort, range", () => {
	test("an equality prefix in any order, then the sort, then a range on the sort field", () => {
		expect(served({ user_id: "?", message_id: { $lt: "?" } }, { message_id: -1 }, userMessages)).toBe(true);
		expect(served({ topic_key: "?", channel_id: "?", user_id: "?", message_id: { $gt: "?" } }, { message_id: 1 }, userMessages)).toBe(true);
		expect(served({ user_id: { $in: ["?"] }, flags: { $eq: "?" } }, { message_id: 1 }, userMessages)).toBe(true);
	});

	test("every sort direction reversed is the index read backwards; mixed directions are not", () => {
		const drafts = [ix({ user_id: 1, timestamp: -1, _id: -1 })];
		expect(served({ user_id: "?" }, { timestamp: -1, _id: -1 }, drafts)).toBe(true);
		expect(served({ user_id: "?" }, { timestamp: 1, _id: 1 }, drafts)).toBe(true);
		expect(served({ user_id: "?" }, { timestamp: -1, _id: 1 }, drafts)).toBe(false);
	});

	test("a sort the index cannot give needs an in-memory sort", () => {
		expect(servedByIndex({ filter: { user_id: "?" }, sort: { timestamp: -1, _id: -1 } }, [ix({ user_id: 1, timestamp: -1 })])).toEqual({
			served: false,
			reason: expect.stringContaining("in-memory sort"),
		});
		// The sort fields must follow the equality prefix directly.
		expect(served({ user_id: "?" }, { message_id: 1 }, [ix({ user_id: 1, channel_id: 1, message_id: 1 })])).toBe(false);
		expect(served({ user_id: "?" }, { message_id: 1, flags: 1 }, userMessages)).toBe(false);
	});

	test("a range before an equality field in the index breaks the sort", () => {
		const index = [ix({ channel_id: 1, topic_key: 1, _id: 1 })];
		expect(served({ channel_id: "?", topic_key: "?", _id: { $lt: "?" } }, { _id: -1 }, index)).toBe(true);
		expect(served({ channel_id: { $gt: "?" }, topic_key: "?" }, { _id: -1 }, index)).toBe(false);
		expect(served({ channel_id: "?", topic_key: "?regex:prefix" }, { _id: -1 }, index)).toBe(false);
		// Without a sort the range on the first field bounds the scan, the equality field's bounds inside it.
		expect(served({ channel_id: { $gt: "?" }, topic_key: "?" }, undefined, index)).toBe(true);
	});

	test("sort fields with an equality condition are sorted already", () => {
		expect(served({ user_id: "?", message_id: { $in: ["?"] } }, { user_id: 1, message_id: 1 }, userMessages)).toBe(true);
	});

	test("sorting on _id: next after the equality prefix, or by the _id index itself", () => {
		expect(served({ sender_id: "?" }, { _id: -1 }, [ix({ sender_id: 1, _id: 1 })])).toBe(true);
		expect(served({ _id: { $gt: "?" } }, { _id: 1 }, [])).toBe(true);
		expect(served({ sender_id: "?" }, { _id: -1 }, [ix({ sender_id: 1 })])).toBe(false);
		// Walking the whole _id index in order and filtering is a collection scan in index order.
		expect(served({ sender_id: "?" }, { _id: -1 }, [])).toBe(false);
		// So is a window's open end beside an equality condition no index serves.
		expect(servedByIndex({ filter: { sender_id: "?", _id: { $lt: "?" } }, sort: { _id: -1 } }, [])).toEqual({ served: false, reason: expect.stringContaining('would only walk a range') });
		expect(served({ sender_id: "?", _id: { $lt: "?" } }, undefined, [])).toBe(false);
	});
});

describe("without a sort", () => {
	test("the index's first field needs a condition; the others only filter", () => {
		expect(served({ user_id: "?", has_link: "?" }, undefined, userMessages)).toBe(true);
		expect(served({ message_id: { $gte: "?" }, flags: { $ne: "?" } }, undefined, userMessages)).toBe(true);
		expect(served({ date: { $lt: "?" }, _id: { $gt: "?" } }, undefined, [ix({ date: 1 })])).toBe(true);
		expect(served({ channel_id: "?", topic_key: "?" }, undefined, userMessages)).toBe(false);
	});

	test("a filter on an unindexed field, or none at all, is a collection scan", () => {
		expect(servedByIndex({ filter: { email: "?" } }, [ix({ realm_id: 1, email_key: 1 })])).toEqual({ served: false, reason: expect.stringContaining("collection scan") });
		expect(served({}, undefined, userMessages)).toBe(false);
	});

	test("negations and unanchored or case-insensitive regexes bound nothing", () => {
		const index = [ix({ topic_key: 1 })];
		expect(served({ topic_key: { $ne: "?" } }, undefined, index)).toBe(false);
		expect(served({ topic_key: { $nin: ["?"] } }, undefined, index)).toBe(false);
		expect(served({ topic_key: { $not: "?regex:prefix" } }, undefined, index)).toBe(false);
		expect(served({ topic_key: "?regex" }, undefined, index)).toBe(false);
		expect(served({ topic_key: { $regex: "?regex:prefix" } }, undefined, index)).toBe(true);
		expect(served({ $nor: [{ topic_key: "?" }] }, undefined, index)).toBe(false);
	});

	test("_id equality or $in is always served", () => {
		expect(served({ _id: "?", active: "?" }, undefined, [])).toBe(true);
		expect(served({ _id: { $in: ["?"] } }, { name: 1 }, [])).toBe(true);
		expect(served({ _id: { $nin: ["?"] } }, undefined, [])).toBe(false);
	});
});

describe("$and and $or", () => {
	test("$and members merge into the top level", () => {
		expect(served({ $and: [{ user_id: "?" }, { $and: [{ message_id: { $lt: "?" } }] }] }, { message_id: -1 }, userMessages)).toBe(true);
	});

	test("an $or beside indexed conditions only filters", () => {
		expect(served({ user_id: "?", $or: [{ sender_id: "?" }, { has_link: "?" }] }, { message_id: 1 }, userMessages)).toBe(true);
	});

	test("otherwise each $or branch must be served, with the conditions beside it and the sort", () => {
		const users = [ix({ realm_id: 1, email_key: 1 }, true)];
		expect(served({ $or: [{ _id: { $in: ["?"] } }, { email_key: { $in: ["?"] } }], realm_id: "?" }, undefined, users)).toBe(true);
		expect(served({ $or: [{ _id: "?" }, { email: "?" }] }, undefined, users)).toBe(false);
		const messages = [ix({ sender_id: 1, _id: 1 }), ix({ recipient_id: 1 })];
		expect(served({ $or: [{ sender_id: "?" }, { recipient_id: "?" }] }, undefined, messages)).toBe(true);
		expect(served({ $or: [{ sender_id: "?" }, { recipient_id: "?" }] }, { _id: -1 }, messages)).toBe(false);
	});
});

describe("multikey fields and keyword search", () => {
	const declared = (): IndexSpec[] => {
		const model = messageModel(mongoose.createConnection());
		return model.schema.indexes().map(([key, options]) => ({ key: key as Record<string, number>, unique: !!options?.unique }));
	};

	test("an array field is an ordinary index field", () => {
		const recipients = [ix({ key: 1 }, true), ix({ user_ids: 1 })];
		expect(served({ user_ids: { $all: ["?"] } }, undefined, recipients)).toBe(true);
		expect(served({ user_ids: { $size: "?" } }, undefined, recipients)).toBe(false);
	});

	test("a search is served by the words index it names, newest first, whatever else the narrow pins", () => {
		const filter = filterShape({ $and: [searchFilter(parseSearch('running "the tests" quickly'))] }) as Filter;
		const window = { ...filter, _id: { $lt: "?" } };
		expect(servedByIndex({ filter: window, sort: { _id: -1 }, hint: SEARCH_INDEX }, declared())).toEqual({ served: true, reason: 'index {"words":1,"_id":1}' });
		expect(servedByIndex({ filter: { ...window, channel_id: "?" }, sort: { _id: -1 }, hint: SEARCH_INDEX }, declared())).toEqual({ served: true, reason: 'index {"words":1,"_id":1}' });
		// Without the words index the same query scans the collection; a hint naming no index serves nothing.
		const others = declared().filter((index) => !("words" in index.key));
		expect(served(window, { _id: -1 }, others)).toBe(false);
		expect(servedByIndex({ filter: window, sort: { _id: -1 }, hint: SEARCH_INDEX }, others).served).toBe(false);
		// A words index without _id after the word cannot give the order.
		expect(served(window, { _id: -1 }, [...others, ix({ words: 1 })])).toBe(false);
	});
});
