// A payload read the way Zulip's integrations read theirs (zerver/lib/validator.py's WildValue):
// every step names where it is (`payload['pull_request']['number']`), and a missing key or a value
// of the wrong type is a 400 in Zulip's words, never an exception deeper in an integration.
import { badRequest } from "../../../shared/errors";
import { pyRepr } from "./toolkit/common";

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Python's truth value of a JSON value. */
export function truthy(v: unknown): boolean {
	if (Array.isArray(v)) return v.length > 0;
	if (isDict(v)) return Object.keys(v).length > 0;
	return v !== null && v !== undefined && v !== false && v !== 0 && v !== "";
}

export class Wild {
	constructor(
		readonly value: unknown,
		readonly name = "payload",
	) {}

	private dict(): Record<string, unknown> {
		if (!isDict(this.value)) throw badRequest(`${this.name} is not a dict`);
		return this.value;
	}

	/** `payload[key]`: the key must be there. */
	at(key: string): Wild {
		const d = this.dict();
		const name = `${this.name}[${pyRepr(key)}]`;
		if (!Object.hasOwn(d, key)) throw badRequest(`${name} is missing`);
		return new Wild(d[key], name);
	}

	/** `payload.get(key, fallback)`. */
	get(key: string, fallback: unknown = null): Wild {
		const d = this.dict();
		return new Wild(Object.hasOwn(d, key) ? d[key] : fallback, `${this.name}[${pyRepr(key)}]`);
	}

	/** A path of keys, each required. */
	path(...keys: string[]): Wild {
		return keys.reduce<Wild>((w, k) => w.at(k), this);
	}

	/** `key in payload`. */
	has(key: string): boolean {
		return isDict(this.value) && Object.hasOwn(this.value, key);
	}

	keys(): string[] {
		return Object.keys(this.dict());
	}

	/** A dict's entries, each value named as `payload[key]` names it. */
	entries(): Array<[string, Wild]> {
		return Object.entries(this.dict()).map(([k, v]) => [k, new Wild(v, `${this.name}[${pyRepr(k)}]`)]);
	}

	get truthy(): boolean {
		return truthy(this.value);
	}

	/** Whether the value is there and not null. */
	get present(): boolean {
		return this.value !== null && this.value !== undefined;
	}

	list(): Wild[] {
		if (!Array.isArray(this.value)) throw badRequest(`${this.name} is not a list`);
		return this.value.map((v, i) => new Wild(v, `${this.name}[${i}]`));
	}

	/** `payload[i]` of a list: the element must be there. */
	item(i: number): Wild {
		const list = this.list();
		if (i >= list.length) throw badRequest(`${this.name}[${i}] is missing`);
		return list[i];
	}

	str(): string {
		if (typeof this.value !== "string") throw badRequest(`${this.name} is not a string`);
		return this.value;
	}

	/** Zulip's check_string_in: one of these strings, else "Invalid <name>". */
	oneOf<T extends string>(values: readonly T[]): T {
		const v = this.str();
		if (!values.includes(v as T)) throw badRequest(`Invalid ${this.name}`);
		return v as T;
	}

	strOrNull(): string | null {
		return this.value === null || this.value === undefined ? null : this.str();
	}

	int(): number {
		if (typeof this.value !== "number" || !Number.isInteger(this.value)) throw badRequest(`${this.name} is not an integer`);
		return this.value;
	}

	intOrNull(): number | null {
		return this.value === null || this.value === undefined ? null : this.int();
	}

	num(): number {
		if (typeof this.value !== "number") throw badRequest(`${this.name} is not a float`);
		return this.value;
	}

	bool(): boolean {
		if (typeof this.value !== "boolean") throw badRequest(`${this.name} is not a boolean`);
		return this.value;
	}
}
