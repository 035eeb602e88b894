// What an integration is and what it is given: the request (its parameters, headers and body, read
// as Zulip's views read them) and the messages it asks to post. The framework (webhook.ts) does
// the rest: who may call, event filters, the channel or the owner, errors, sending.
import { Errors } from "moleculer";
import { apiError, badRequest } from "../../../shared/errors";
import type { IntegrationPeople, WebhookCall } from "../../../shared/actions";
import { Wild } from "./payload";

/** One message an integration asks to post; `event` is the event type only_events/exclude_events match. */
export interface Post {
	topic: string;
	content: string;
	event?: string;
	/** A direct message to this user instead of the URL's channel (TeamCity's personal builds). */
	directTo?: number;
}

/** An integration's answer: messages to post, and (rarely) its own reply to the tool. */
export interface Outcome {
	posts: Post[];
	/** Extra fields of the success envelope. */
	data?: Record<string, unknown>;
	/** A channel (by name) the tool's payload names, over the URL's (Slack's channels_map_to_topics=0). */
	channel?: string;
	/** A reply in the tool's own terms instead of Zulip's envelope. */
	raw?: { status: number; json?: unknown; text?: string };
	/** A notice for the bot's owner (rate-limited as every owner notice). */
	ownerNotice?: (o: { botName: string; supportEmail: string }) => string;
}

export interface Integration {
	/** The URL's last segment: /api/v1/external/<name>. */
	name: string;
	/** Further URL names served by the same module (Zulip's githubsponsors is GitHub's view). */
	aliases?: string[];
	/** As Zulip names it; the messages' client is Zulip<displayName>Webhook. */
	displayName: string;
	/** Whether the bot's owner is told when the body is not JSON (Zulip's notify_bot_owner_on_invalid_json). */
	notifyOnInvalidJson?: boolean;
	/** Channel and topic arrive URL-encoded twice from this tool (Zulip's unquote_url_parameters). */
	unquoteUrlParameters?: boolean;
	handle(req: WebhookRequest): Outcome | Promise<Outcome>;
	/** The tool's own form of an error answer (Slack's {ok: false, error}), instead of Zulip's envelope. */
	errorAnswer?: (status: number, msg: string) => { status: number; json?: unknown; text?: string };
}

/** Zulip's UnsupportedWebhookEventTypeError: answered as a success naming the event, nothing posted. */
export class UnsupportedEvent extends Error {
	constructor(readonly eventType: string) {
		super(`unsupported event ${eventType}`);
	}
}

/** Zulip's MissingHTTPEventHeaderError; the framework tells the bot's owner. */
export class MissingHeader extends Error {
	constructor(readonly header: string) {
		super(`Missing the HTTP event header '${header}'`);
	}
}

/** Zulip's AnomalousWebhookPayloadError: a payload the tool would not have sent. */
export class AnomalousPayload extends Error {
	constructor() {
		super("anomalous webhook payload");
	}
}

/**
 * A payload missing what the tool's setup should have put in it: 400 "Invalid payload", and the
 * bot's owner gets the integration's explanation (Zabbix's, UptimeRobot's).
 */
export class MisconfiguredPayload extends Error {
	constructor(readonly notice: (o: { botName: string; supportEmail: string }) => string) {
		super("Invalid payload");
	}
}

type Notice = (o: { botName: string; supportEmail: string }) => string;

/** Reads a payload with `read`; a field missing or of the wrong type is a MisconfiguredPayload. */
export function readingSetup<T>(notice: Notice, read: () => T): T {
	try {
		return read();
	} catch (err) {
		if (err instanceof Errors.MoleculerClientError) throw new MisconfiguredPayload(notice);
		throw err;
	}
}

/** Zulip's InvalidJSONError for a body that is not JSON; the framework may tell the bot's owner. */
export class MalformedJson extends Error {
	constructor() {
		super("Malformed JSON");
	}
}

export const posts = (...list: Post[]): Outcome => ({ posts: list });

/** Nothing posted, success for the tool, and the bot's owner told what to fix (TeamCity's wrong payload format). */
export const notifyOwnerOnly = (notice: Outcome["ownerNotice"]): Outcome => ({ posts: [], ownerNotice: notice });
export const nothing = (): Outcome => ({ posts: [] });

/** Bodies nested deeper than this are refused as malformed before anything reads them. */
const MAX_DEPTH = 200;

function tooDeep(text: string): boolean {
	let depth = 0;
	let inString = false;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (inString) {
			if (c === 92) i++;
			else if (c === 34) inString = false;
		} else if (c === 34) inString = true;
		else if (c === 123 || c === 91) {
			if (++depth > MAX_DEPTH) return true;
		} else if (c === 125 || c === 93) depth--;
	}
	return false;
}

/** JSON text as Python's json.loads takes it, or MalformedJson. */
export function parseJson(text: string): unknown {
	if (tooDeep(text)) throw new MalformedJson();
	try {
		return JSON.parse(text) as unknown;
	} catch {
		throw new MalformedJson();
	}
}

/** A multipart/form-data body's text fields (Django's request.POST; files are left out). */
function multipartFields(body: string, contentType: string): Record<string, string> {
	const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
	const fields: Record<string, string> = {};
	if (!boundary) return fields;
	for (const part of body.split(`--${boundary}`).slice(1)) {
		const split = part.indexOf("\r\n\r\n");
		if (split < 0) continue;
		const head = part.slice(0, split);
		const name = /content-disposition:[^\r\n]*\bname="([^"]*)"/i.exec(head)?.[1];
		if (name === undefined || /\bfilename=/i.test(head)) continue;
		fields[name] = part.slice(split + 4).replace(/\r\n$/, "");
	}
	return fields;
}

/** What an integration may ask of the organization. */
export interface Lookups {
	/** Full names of active users by delivery email, and by a tool's username guessed as Jira does. */
	people(emails: string[], guesses: string[]): Promise<IntegrationPeople>;
}

export class WebhookRequest {
	/** The form body's fields over the query's, as Django's REQ reads them. */
	readonly params: Record<string, string>;
	private parsed?: Wild;

	constructor(
		readonly call: WebhookCall,
		readonly bot: { user_id: number; full_name: string; email: string },
		readonly lookups: Lookups,
	) {
		this.params = { ...call.query };
		if (this.contentType.startsWith("application/x-www-form-urlencoded")) {
			for (const [k, v] of new URLSearchParams(call.body)) this.params[k] = v;
		} else if (this.contentType.startsWith("multipart/form-data")) {
			Object.assign(this.params, multipartFields(call.body, call.headers["content-type"] ?? ""));
		}
	}

	get contentType(): string {
		return (this.call.headers["content-type"] ?? "").toLowerCase();
	}

	get body(): string {
		return this.call.body;
	}

	/** The body as JSON (Zulip's JsonBodyPayload). */
	json(): Wild {
		this.parsed ??= new Wild(parseJson(this.call.body));
		return this.parsed;
	}

	/** Zulip's WebhookPayload: JSON in the `payload` parameter where there is one, else the body. */
	payload(): Wild {
		return this.params.payload !== undefined ? this.jsonParam("payload") : this.json();
	}

	/** A parameter holding JSON (Zulip's `payload: Json[...]` form field). */
	jsonParam(name: string): Wild {
		return new Wild(parseJson(this.requiredParam(name)), name);
	}

	header(name: string): string | undefined {
		return this.call.headers[name.toLowerCase()];
	}

	/** Zulip's validate_extract_webhook_http_header: the header, or MissingHeader. */
	eventHeader(name: string): string {
		const v = this.header(name);
		if (v === undefined) throw new MissingHeader(name);
		return v;
	}

	param(name: string): string | undefined {
		return this.params[name];
	}

	/** A parameter the view requires: "Missing '<name>' argument" without it. */
	requiredParam(name: string): string {
		const v = this.params[name];
		if (v === undefined) throw apiError(400, "REQUEST_VARIABLE_MISSING", `Missing '${name}' argument`, { var_name: name });
		return v;
	}

	/** A `Json[bool]` parameter (`true`/`false`), with its default. */
	boolParam(name: string, fallback = false): boolean {
		const v = this.params[name];
		if (v === undefined) return fallback;
		if (v === "true") return true;
		if (v === "false") return false;
		throw badRequest(`${name} is not a boolean`);
	}
}
