// An export's recipients and message rows as Zulip's import (import_realm.py) maps them: the system
// bots (Zulip's cross-realm bots) have a recipient ID that messages sent to them name and that
// zerver_userprofile_crossrealm carries, but no zerver_recipient row (Zulip's import maps the ID
// onto its own bot's recipient; a row would be a second (PERSONAL, bot) recipient there), and an
// edit's previous rendering carries its Markdown version.
import { messageFile, Clients } from "../../shared/zulip-format/message-files";
import { Recipients } from "../../shared/zulip-format/recipients";
import { crossRealmRows } from "../../shared/zulip-format/user-tables";
import type { ExportMessage } from "../../shared/export-rows";

const USERS = [10, 11, 12];
const CHANNELS = [1, 2];
const BOTS = [3, 4];

const message = (m: Partial<ExportMessage>): ExportMessage => ({
	id: 1,
	sender_id: 10,
	channel_id: null,
	dm_user_ids: [],
	topic: "",
	content: "hi",
	rendered_content: "<p>hi</p>",
	timestamp: 1_700_000_000.123,
	client: "website",
	last_edit_timestamp: null,
	edit_history: null,
	has_link: false,
	has_image: false,
	has_attachment: false,
	is_resolve_notice: false,
	...m,
});

test("the system bots' recipients come first and have no zerver_recipient row; no (type, type_id) twice", () => {
	const r = new Recipients(USERS, CHANNELS, BOTS);
	const bots = crossRealmRows(BOTS.map((id) => ({ id, email: `bot${id}@zulip.com` })), r);
	expect(bots).toEqual([
		{ id: 3, email: "bot3@zulip.com", recipient_id: 1 },
		{ id: 4, email: "bot4@zulip.com", recipient_id: 2 },
	]);
	const group = r.dm([10, 11, 12], 10)!;
	expect(r.rows.map((row) => row.id)).toEqual([3, 4, 5, 6, 7, 8]);
	expect(r.rows.find((row) => row.id === group)).toEqual({ id: group, type: 3, type_id: 1 });
	expect(r.rows.filter((row) => row.type === 1 && BOTS.includes(row.type_id as number))).toEqual([]);
	const pairs = r.rows.map((row) => `${row.type}:${row.type_id}`);
	expect(new Set(pairs).size).toBe(pairs.length);
	// A direct message to a bot names its recipient; one from a bot, its addressee's.
	expect(r.dm([3, 10], 10)).toBe(1);
	expect(r.dm([3, 10], 3)).toBe(r.user(10));
});

test("a message file: float times kept, edit history newest first with prev_rendered_content_version", () => {
	const r = new Recipients(USERS, CHANNELS, BOTS);
	const history = [
		{ user_id: 10, timestamp: 1_700_000_100, prev_content: "a", prev_rendered_content: "<p>a</p>" },
		{ user_id: 11, timestamp: 1_700_000_200, prev_content: "b", prev_rendered_content: "<p>b</p>", prev_rendered_content_version: 2 },
		{ user_id: 11, timestamp: 1_700_000_300, prev_topic: "x", topic: "y" },
	];
	const file = messageFile([message({ edit_history: history, last_edit_timestamp: 1_700_000_200.5 }), message({ id: 2, sender_id: 3, dm_user_ids: [3, 10] })], 7, r, new Clients());
	const [edited, fromBot] = file.zerver_message;
	expect(edited).toMatchObject({ date_sent: 1_700_000_000.123, last_edit_time: 1_700_000_200.5, rendered_content_version: 1 });
	expect(JSON.parse(edited.edit_history as string)).toEqual([
		{ user_id: 11, timestamp: 1_700_000_300, prev_topic: "x", topic: "y" },
		{ user_id: 11, timestamp: 1_700_000_200, prev_content: "b", prev_rendered_content: "<p>b</p>", prev_rendered_content_version: 2 },
		{ user_id: 10, timestamp: 1_700_000_100, prev_content: "a", prev_rendered_content: "<p>a</p>", prev_rendered_content_version: 1 },
	]);
	expect(fromBot).toMatchObject({ sender: 3, recipient: r.user(10) });
});
