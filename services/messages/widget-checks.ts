// What Zulip's validators (zerver/lib/validator.py) accept of a widget's data, in their words:
// the content of a submessage on a poll or a to-do list (validate_poll_data, validate_todo_data),
// and a message's explicit widget_content (check_widget_content). The server checks types only:
// a vote for an option that does not exist is stored, and clients ignore it.
//
// As in Python, true and false are integers (isinstance(True, int)), and a number written with
// a fraction or an exponent is a float, never an integer (python-json.ts).
import { badRequest } from "../../shared/errors";
import { parsePyJson, PyFloat } from "./python-json";

/** A refusal, its message Zulip's ValidationError text. */
export class WidgetDataError extends Error {}

type Check = (name: string, value: unknown) => void;

const fail = (msg: string): never => {
	throw new WidgetDataError(msg);
};

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof PyFloat);

const checkString: Check = (name, v) => {
	if (typeof v !== "string") fail(`${name} is not a string`);
};

const checkBool: Check = (name, v) => {
	if (typeof v !== "boolean") fail(`${name} is not a boolean`);
};

function checkInt(name: string, v: unknown): number {
	if (typeof v === "boolean") return v ? 1 : 0;
	if (typeof v !== "number" || !Number.isInteger(v)) return fail(`${name} is not an integer`);
	return v;
}

const checkIntIn =
	(values: number[]): Check =>
	(name, v) => {
		if (!values.includes(checkInt(name, v))) fail(`Invalid ${name}`);
	};

/** Both ends allowed. */
const checkIntRange =
	(low: number, high: number): Check =>
	(name, v) => {
		const n = checkInt(name, v);
		if (n < low) fail(`${name} is too small`);
		if (n > high) fail(`${name} is too large`);
	};

const checkList =
	(item: Check): Check =>
	(name, v) => {
		if (!Array.isArray(v)) return fail(`${name} is not a list`);
		v.forEach((x, i) => item(`${name}[${i}]`, x));
	};

/** check_dict; `only` is check_dict_only (no keys but those listed). */
const checkDict =
	(required: Array<[string, Check]>, only = false): Check =>
	(name, v) => {
		if (!isDict(v)) return fail(`${name} is not a dict`);
		for (const [key, check] of required) {
			if (!Object.hasOwn(v, key)) fail(`${key} key is missing from ${name}`);
			check(`${name}["${key}"]`, v[key]);
		}
		const extra = only ? Object.keys(v).filter((k) => !required.some(([key]) => key === k)) : [];
		if (extra.length) fail(`Unexpected arguments: ${extra.join(", ")}`);
	};

/** Zulip's MAX_IDX, as its clients' widgets: somewhat arbitrary. */
const MAX_IDX = 1000;

/** What each kind of event on a widget holds; `authorOnly` kinds are the widget author's alone. */
interface EventKinds {
	label: string;
	kinds: Record<string, { keys: Array<[string, Check]>; authorOnly?: string }>;
}

const POLL: EventKinds = {
	label: "poll data",
	kinds: {
		vote: { keys: [["type", checkString], ["key", checkString], ["vote", checkIntIn([1, -1])]] },
		question: { keys: [["type", checkString], ["question", checkString]], authorOnly: "You can't edit a question unless you are the author." },
		new_option: { keys: [["type", checkString], ["option", checkString], ["idx", checkIntRange(0, MAX_IDX)]] },
	},
};

const TODO: EventKinds = {
	label: "todo data",
	kinds: {
		new_task: { keys: [["type", checkString], ["key", checkIntRange(0, MAX_IDX)], ["task", checkString], ["desc", checkString], ["completed", checkBool]] },
		strike: { keys: [["type", checkString], ["key", checkString]] },
		new_task_list_title: { keys: [["type", checkString], ["title", checkString]], authorOnly: "You can't edit the task list title unless you are the author." },
	},
};

function validateEvent(spec: EventKinds, data: unknown, isWidgetAuthor: boolean): void {
	checkDict([["type", checkString]])(spec.label, data);
	const type = (data as Record<string, string>).type;
	const kind = Object.hasOwn(spec.kinds, type) ? spec.kinds[type] : undefined;
	if (!kind) return fail(`Unknown type for ${spec.label}: ${type}`);
	if (kind.authorOnly && !isWidgetAuthor) fail(kind.authorOnly);
	checkDict(kind.keys, true)(spec.label, data);
}

/** validate_poll_data and validate_todo_data, by the widget's type; other widgets' data is not checked. */
export function validateWidgetEvent(widgetType: string | null, data: unknown, isWidgetAuthor: boolean): void {
	if (widgetType === "poll") validateEvent(POLL, data, isWidgetAuthor);
	else if (widgetType === "todo") validateEvent(TODO, data, isWidgetAuthor);
}

/** Python's str() of a value Zulip concatenates into a message. */
const shown = (v: unknown) => (typeof v === "string" ? v : v instanceof PyFloat ? String(v.value) : JSON.stringify(v));

/** check_widget_content: a message's explicit widget, of which Zulip knows only zform's choices. */
export function checkWidgetContent(content: unknown): { widget_type: string; extra_data: Record<string, unknown> } {
	if (!isDict(content)) return fail("widget_content is not a dict");
	if (!Object.hasOwn(content, "widget_type")) fail("widget_type is not in widget_content");
	if (!Object.hasOwn(content, "extra_data")) fail("extra_data is not in widget_content");
	const { widget_type, extra_data } = content;
	if (!isDict(extra_data)) return fail("extra_data is not a dict");
	if (widget_type !== "zform") return fail(`unknown widget type: ${shown(widget_type)}`);
	if (!Object.hasOwn(extra_data, "type")) fail("zform is missing type field");
	if (extra_data.type !== "choices") fail(`unknown zform type: ${shown(extra_data.type)}`);
	const choice = checkDict([["short_name", checkString], ["long_name", checkString], ["reply", checkString]]);
	checkDict([["type", checkString], ["heading", checkString], ["choices", checkList(choice)]])("extra_data", extra_data);
	return { widget_type, extra_data };
}

/** POST /messages' widget_content, checked as Zulip's check_message does, in its words. */
export function requestedWidget(raw: string): { widget_type: string; extra_data: Record<string, unknown> } {
	let content: unknown;
	try {
		content = parsePyJson(raw);
	} catch {
		throw badRequest("Widgets: API programmer sent invalid JSON content");
	}
	try {
		return checkWidgetContent(content);
	} catch (err) {
		if (err instanceof WidgetDataError) throw badRequest(`Widgets: ${err.message}`);
		throw err;
	}
}
