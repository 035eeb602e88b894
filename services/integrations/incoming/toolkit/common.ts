// What every kind of integration shares (zerver/lib/webhooks/common.py): the message that says a
// webhook is set up, and values written as Python writes them into Zulip's messages.

export function setupMessage(integration: string, userName?: string | null): string {
	return `${integration} webhook has been successfully configured${userName ? ` by ${userName}` : ""}.`;
}

/** A value as Python's str() writes it (None, True, False; lists and dicts as their repr). */
export function pyStr(v: unknown): string {
	if (v === null || v === undefined) return "None";
	if (v === true) return "True";
	if (v === false) return "False";
	if (typeof v === "object") return pyRepr(v);
	return String(v);
}

/** Python's repr() of a JSON value. */
export function pyRepr(v: unknown): string {
	if (typeof v === "string") return v.includes("'") && !v.includes('"') ? `"${v}"` : `'${v.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
	if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
	if (v && typeof v === "object") return `{${Object.entries(v).map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(", ")}}`;
	return pyStr(v);
}

/** Python's str.title(): each run of letters starts upper case, the rest lower case. */
export function pyTitle(s: string): string {
	return s.toLowerCase().replace(/(^|[^\p{L}])(\p{L})/gu, (_, before: string, letter: string) => before + letter.toUpperCase());
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** A `YYYY-MM-DD` date's parts; anything else is a malformed payload. */
function dateParts(date: string): { year: string; month: number; day: string } {
	const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
	const month = m ? Number(m[2]) : 0;
	if (!m || month < 1 || month > 12 || Number(m[3]) < 1 || Number(m[3]) > 31) throw new Error(`not a date: ${date}`);
	return { year: m[1], month, day: m[3] };
}

/** strftime("%B %d, %Y"): "March 05, 2025". */
export function longMonthDate(date: string): string {
	const d = dateParts(date);
	return `${MONTHS[d.month - 1]} ${d.day}, ${d.year}`;
}

/** strftime("%b %d, %Y"): "Mar 05, 2025". */
export function shortMonthDate(date: string): string {
	const d = dateParts(date);
	return `${MONTHS[d.month - 1].slice(0, 3)} ${d.day}, ${d.year}`;
}

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const pad = (n: number) => String(n).padStart(2, "0");

/** Python's time.ctime() (and strftime("%c") in the C locale) in UTC: "Fri Dec 29 17:23:46 2017". */
export function ctime(d: Date): string {
	if (Number.isNaN(d.getTime())) throw new Error("not a time");
	return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()].slice(0, 3)} ${String(d.getUTCDate()).padStart(2, " ")} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${d.getUTCFullYear()}`;
}
