// Custom profile fields: the field types, what each field's configuration and each user's value
// may be, and how fields and values look in the API.
import { badRequest } from "../../../shared/errors";
import { renderMarkdown } from "../../../shared/markdown/render";
import type { ProfileFieldDoc } from "./profile-field-model";

export const FieldType = {
	SHORT_TEXT: 1,
	LONG_TEXT: 2,
	SELECT: 3,
	DATE: 4,
	URL: 5,
	USER: 6,
	EXTERNAL_ACCOUNT: 7,
	PRONOUNS: 8,
} as const;

export const FIELD_TYPES: Record<string, { id: number; name: string }> = {
	SHORT_TEXT: { id: 1, name: "Text (short)" },
	LONG_TEXT: { id: 2, name: "Text (long)" },
	SELECT: { id: 3, name: "List of options" },
	DATE: { id: 4, name: "Date picker" },
	URL: { id: 5, name: "Link" },
	USER: { id: 6, name: "Person picker" },
	EXTERNAL_ACCOUNT: { id: 7, name: "External account" },
	PRONOUNS: { id: 8, name: "Pronouns" },
};

/** The external account sites offered by default (`realm_default_external_accounts`). */
export const DEFAULT_EXTERNAL_ACCOUNTS: Record<string, { name: string; text: string; hint: string; url_pattern: string }> = {
	github: { name: "GitHub", text: "GitHub", hint: "Enter your GitHub username", url_pattern: "https://github.com/%(username)s" },
	twitter: { name: "Twitter", text: "Twitter", hint: "Enter your Twitter username", url_pattern: "https://twitter.com/%(username)s" },
};

export const NAME_MAX = 40;
export const HINT_MAX = 80;
const SHORT_VALUE_MAX = 50;
const LONG_VALUE_MAX = 500;

function parseObject(raw: string, what: string): Record<string, unknown> {
	let v: unknown;
	try {
		v = JSON.parse(raw);
	} catch {
		throw badRequest(`${what} is not valid JSON`);
	}
	if (!v || typeof v !== "object" || Array.isArray(v)) throw badRequest(`${what} is not a dict`);
	return v as Record<string, unknown>;
}

export function checkName(name: string): string {
	const n = name.trim();
	if (!n) throw badRequest("Label cannot be blank.");
	if (n.length > NAME_MAX) throw badRequest(`name is too long (limit: ${NAME_MAX} characters)`);
	return n;
}

export function checkHint(hint: string): string {
	if (hint.length > HINT_MAX) throw badRequest(`hint is too long (limit: ${HINT_MAX} characters)`);
	return hint;
}

/** Checks a field's configuration for its type and returns it as stored (JSON text or ""). */
export function checkFieldData(type: number, fieldData: unknown): string {
	if (type === FieldType.SELECT) {
		const raw = typeof fieldData === "string" ? parseObject(fieldData, "field_data") : (fieldData as Record<string, unknown>);
		if (!raw || typeof raw !== "object" || Array.isArray(raw) || Object.keys(raw).length === 0) {
			throw badRequest("Field must have at least one choice.");
		}
		const texts = new Set<string>();
		for (const [key, option] of Object.entries(raw)) {
			const o = option as { text?: unknown; order?: unknown };
			if (!o || typeof o !== "object" || typeof o.text !== "string" || typeof o.order !== "string") {
				throw badRequest(`field_data["${key}"] must have a text and an order`);
			}
			if (!o.text.trim()) throw badRequest("Label cannot be blank.");
			if (texts.has(o.text)) throw badRequest("Field must not have duplicate choices.");
			texts.add(o.text);
		}
		return JSON.stringify(raw);
	}
	if (type === FieldType.EXTERNAL_ACCOUNT) {
		const raw = typeof fieldData === "string" ? parseObject(fieldData, "field_data") : (fieldData as Record<string, unknown>);
		const subtype = raw?.subtype;
		if (subtype === "custom") {
			const pattern = raw.url_pattern;
			if (typeof pattern !== "string" || !/^https?:\/\/[^\s]*%\(username\)s[^\s]*$/.test(pattern)) {
				throw badRequest("Custom external account must define URL pattern");
			}
			return JSON.stringify({ subtype, url_pattern: pattern });
		}
		if (typeof subtype !== "string" || !Object.hasOwn(DEFAULT_EXTERNAL_ACCOUNTS, subtype)) throw badRequest("Invalid external account type");
		return JSON.stringify({ subtype });
	}
	if (fieldData !== undefined && fieldData !== "" && !(typeof fieldData === "object" && fieldData && Object.keys(fieldData).length === 0)) {
		throw badRequest("field_data is only for choice and external account fields");
	}
	return "";
}

export function isEmptyValue(value: unknown): boolean {
	return value === null || value === undefined || value === "" || (Array.isArray(value) && value.length === 0);
}

/**
 * Checks one user's value for a field and returns it as stored: always a string, as the API
 * shows it (a person picker's user IDs as a JSON list).
 */
export async function checkValue(field: ProfileFieldDoc, value: unknown, userIdsExist: (ids: number[]) => Promise<boolean>): Promise<string> {
	const name = field.name;
	switch (field.type) {
		case FieldType.SHORT_TEXT:
		case FieldType.EXTERNAL_ACCOUNT:
		case FieldType.PRONOUNS:
		case FieldType.LONG_TEXT: {
			if (typeof value !== "string") throw badRequest(`${name} is not a string`);
			const max = field.type === FieldType.LONG_TEXT ? LONG_VALUE_MAX : SHORT_VALUE_MAX;
			if (value.length > max) throw badRequest(`${name} is too long (limit: ${max} characters)`);
			return value;
		}
		case FieldType.DATE: {
			if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
				throw badRequest(`${name} is not a date`);
			}
			// Date.parse accepts 2023-02-31; a round trip does not.
			if (new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value) throw badRequest(`${name} is not a date`);
			return value;
		}
		case FieldType.URL: {
			let ok = false;
			if (typeof value === "string" && value.length <= 2048) {
				try {
					ok = ["http:", "https:"].includes(new URL(value).protocol);
				} catch {
					ok = false;
				}
			}
			if (!ok) throw badRequest(`${name} is not a URL`);
			return value as string;
		}
		case FieldType.SELECT: {
			const choices = JSON.parse(field.field_data || "{}") as Record<string, unknown>;
			if (typeof value !== "string" || !Object.hasOwn(choices, value)) throw badRequest(`'${String(value)}' is not a valid choice for '${name}'.`);
			return value;
		}
		case FieldType.USER: {
			let ids: unknown = value;
			if (typeof value === "string") {
				try {
					ids = JSON.parse(value);
				} catch {
					ids = undefined;
				}
			}
			if (!Array.isArray(ids) || !ids.every((i) => Number.isInteger(i))) throw badRequest(`${name} is not a list of user IDs`);
			const unique = [...new Set(ids as number[])];
			if (!(await userIdsExist(unique))) throw badRequest("Invalid user ID");
			return JSON.stringify(unique);
		}
		default:
			throw badRequest("Invalid field type.");
	}
}


/** A user's stored values as `profile_data`: text fields also carry their rendered HTML. */
export function profileDataView(values: Record<string, string> | undefined, fields: Map<number, ProfileFieldDoc>): Record<string, { value: string; rendered_value?: string }> {
	const out: Record<string, { value: string; rendered_value?: string }> = {};
	for (const [id, value] of Object.entries(values ?? {})) {
		const field = fields.get(Number(id));
		if (!field) continue;
		const text = field.type === FieldType.SHORT_TEXT || field.type === FieldType.LONG_TEXT;
		out[id] = text ? { value, rendered_value: renderMarkdown(value) } : { value };
	}
	return out;
}

export function fieldView(f: ProfileFieldDoc): Record<string, unknown> {
	return {
		id: f._id,
		name: f.name,
		type: f.type,
		hint: f.hint,
		field_data: f.field_data,
		order: f.order,
		display_in_profile_summary: f.display_in_profile_summary,
		required: f.required,
		editable_by_user: f.editable_by_user,
	};
}
