// The official mobile app's decoders for submessages (zulip-flutter lib/api/model/submessage.dart
// and its generated submessage.g.dart, with SubmessageEvent from events.g.dart), transcribed: each
// Dart cast (`as String`, `as num`, `as Map`) throws on a value of another type, as the app
// would fail to read it. Only what the app reads is read.

function cast<T>(value: unknown, type: "String" | "num" | "Map" | "List", field: string): T {
	const ok = type === "String" ? typeof value === "string" : type === "num" ? typeof value === "number" : type === "List" ? Array.isArray(value) : typeof value === "object" && value !== null && !Array.isArray(value);
	if (!ok) throw new TypeError(`${field}: ${JSON.stringify(value)} is not a ${type}`);
	return value as T;
}

/** `(json[k] as num).toInt()`: Dart's toInt truncates. */
const int = (json: Record<string, unknown>, k: string) => Math.trunc(cast<number>(json[k], "num", k));
/** `$enumDecode(..., unknownValue: SubmessageType.unknown)`: a string, unknown values allowed. */
const msgType = (v: unknown) => (cast<string>(v, "String", "msg_type") === "widget" ? "widget" : "unknown");

export function submessageFromJson(json: Record<string, unknown>) {
	return { msgType: msgType(json.msg_type), content: cast<string>(json.content, "String", "content"), senderId: int(json, "sender_id") };
}

export function submessageEventFromJson(json: Record<string, unknown>) {
	return {
		id: int(json, "id"),
		msgType: msgType(json.msg_type),
		content: cast<string>(json.content, "String", "content"),
		messageId: int(json, "message_id"),
		senderId: int(json, "sender_id"),
		submessageId: int(json, "submessage_id"),
	};
}

/** WidgetData.fromJson: a poll's extra data (question and options default when absent), or unsupported. */
export function widgetDataFromJson(json: unknown) {
	const map = json as Record<string, unknown>;
	const widgetType = cast<string>(map.widget_type, "String", "widget_type");
	if (widgetType !== "poll") return { widgetType: "unknown" as const, json };
	const extra = cast<Record<string, unknown>>(map.extra_data, "Map", "extra_data");
	const question = extra.question === undefined || extra.question === null ? "" : cast<string>(extra.question, "String", "question");
	const options = extra.options === undefined || extra.options === null ? [] : cast<unknown[]>(extra.options, "List", "options").map((o) => cast<string>(o, "String", "option"));
	return { widgetType: "poll" as const, extraData: { question, options } };
}

const POLL_EVENT_TYPES = ["new_option", "question", "vote", "unknown"];

/** PollEventSubmessage.fromJson; fromRawString's `!` throws on a type it does not know. */
export function pollEventFromJson(json: Record<string, unknown>) {
	const type = cast<string>(json.type, "String", "type");
	if (!POLL_EVENT_TYPES.includes(type)) throw new TypeError(`unknown poll event type ${type}`);
	if (type === "new_option") return { type, option: cast<string>(json.option, "String", "option"), idx: int(json, "idx") };
	if (type === "question") return { type, question: cast<string>(json.question, "String", "question") };
	if (type === "vote") {
		const key = cast<string>(json.key, "String", "key");
		const op = json.vote === 1 ? "add" : json.vote === -1 ? "remove" : "unknown";
		// The app's "crunchy shell" check of the option key: "<sender ID or canned>,<index>".
		const segments = key.split(",");
		if (segments.length !== 2) throw new TypeError(`vote key ${key} has ${segments.length} segments`);
		const [sender, idx] = segments;
		if (sender !== "canned" && !/^[+-]?\d+$/.test(sender)) throw new TypeError(`vote key sender ${sender}`);
		if (!/^[+-]?\d+$/.test(idx)) throw new TypeError(`vote key index ${idx}`);
		return { type, key, op };
	}
	return { type, json };
}
