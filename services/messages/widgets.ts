// Widgets made at send time, as Zulip's zerver/lib/widget.py: a message whose content starts
// with /poll or /todo gets a first submessage (msg_type "widget") holding the widget's type and
// its initial data, the question and options or the task list's title and tasks, parsed from the
// rest of the content. Every message is read so, whoever sends it (Zulip's do_send_messages
// calls do_widget_post_save_actions for each); a message's explicit widget_content (a zform,
// checked by widget-checks.ts) takes the place of what its content says.
//
// Python's string rules are kept: its whitespace (str.isspace), its line breaks (splitlines), and
// json.dumps for the stored content (python-json.ts).
import { pyJsonDumps, parsePyJson } from "./python-json";

export interface Widget {
	widget_type: string;
	extra_data: unknown;
}

/** Python's whitespace characters (str.isspace, and re's \s on str). */
const SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const SPACES = new RegExp(`[${SPACE}]+`);
const EDGES = new RegExp(`^[${SPACE}]+|[${SPACE}]+$`, "g");
/** What Zulip strips from an option or task line: list syntax ("- ", "* "). */
const LIST_MARK = new RegExp(`[${SPACE}]*[-*]?[${SPACE}]*`);
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/;

const strip = (s: string) => s.replace(EDGES, "");

/** Python's str.splitlines(): no trailing empty line, none at all for "". */
function splitLines(s: string): string[] {
	if (s === "") return [];
	const lines = s.split(LINE_BREAK);
	if (lines[lines.length - 1] === "") lines.pop();
	return lines;
}

/** The first line, when not empty, is the heading; the other non-empty lines are the items. */
function headingAndItems(content: string): { heading: string; items: string[] } {
	const lines = splitLines(content);
	let heading = "";
	if (lines.length && lines[0]) heading = strip(lines.shift()!);
	const items = lines.map((line) => strip(line).replace(LIST_MARK, "")).filter((item) => item.length > 0);
	return { heading, items };
}

function pollData(content: string) {
	const { heading, items } = headingAndItems(content);
	return { question: heading, options: items };
}

/** A task and its description are separated by the first ": ". */
function todoData(content: string) {
	const { heading, items } = headingAndItems(content);
	const tasks = items.map((item) => {
		const at = item.indexOf(": ");
		return at < 0 ? { task: strip(item), desc: "" } : { task: strip(item.slice(0, at)), desc: strip(item.slice(at + 2)) };
	});
	return { task_list_title: heading, tasks };
}

const COMMANDS: Record<string, (rest: string) => unknown> = { poll: pollData, todo: todoData };

/** get_widget_data: the widget a message's content asks for, if its first word is /poll or /todo. */
export function widgetOfContent(content: string): Widget | null {
	const first = content.split(SPACES)[0];
	if (!first.startsWith("/")) return null;
	const type = first.slice(1);
	if (!Object.hasOwn(COMMANDS, type)) return null;
	return { widget_type: type, extra_data: COMMANDS[type](content.slice(first.length)) };
}

/** The first submessage's content, as Zulip writes it (json.dumps of widget_type, extra_data). */
export const widgetContent = (w: Widget): string => pyJsonDumps({ widget_type: w.widget_type, extra_data: w.extra_data });

/** get_widget_type: the widget type a "widget" submessage names, or null when it names none. */
export function widgetTypeOf(content: string): string | null {
	try {
		const data = parsePyJson(content);
		if (typeof data !== "object" || data === null || Array.isArray(data)) return null;
		const type = (data as Record<string, unknown>).widget_type;
		return typeof type === "string" ? type : null;
	} catch {
		return null;
	}
}
