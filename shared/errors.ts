// Typed API errors. Services throw these; the gateway renders them as Zulip's error envelope
// `{result: "error", msg, code, ...extra}` with the HTTP status Zulip uses.
//
// They are Moleculer client errors so that they cross the bus intact: `code` carries the HTTP
// status, `type` the Zulip error code and `data` the extra fields of the body.
import { Errors } from "moleculer";

export type ErrorCode =
	| "BAD_REQUEST"
	| "REQUEST_VARIABLE_MISSING"
	| "REQUEST_VARIABLE_INVALID"
	| "INVALID_JSON"
	| "UNAUTHORIZED"
	| "USER_DEACTIVATED"
	| "REALM_DEACTIVATED"
	| "AUTHENTICATION_FAILED"
	| "UNAUTHORIZED_PRINCIPAL"
	| "NOT_FOUND"
	| "METHOD_NOT_ALLOWED"
	| "RATE_LIMIT_HIT"
	| "CSRF_FAILED"
	| "STREAM_DOES_NOT_EXIST"
	| "REACTION_DOES_NOT_EXIST"
	| "REACTION_ALREADY_EXISTS"
	| "INVITATION_FAILED"
	| "BAD_NARROW"
	| "BAD_EVENT_QUEUE_ID"
	| "CANNOT_DEACTIVATE_LAST_USER"
	| "REALM_UPLOAD_QUOTA"
	| "BAD_IMAGE"
	| "INTERNAL_SERVER_ERROR"
	| "SERVICE_UNAVAILABLE"
	| "OUTCOME_UNKNOWN"
	| "MISSING_HTTP_EVENT_HEADER"
	| "UNSUPPORTED_WEBHOOK_EVENT_TYPE"
	| "ANOMALOUS_WEBHOOK_PAYLOAD"
	| "INVALID_PUSH_DEVICE_TOKEN"
	| "INVALID_REMOTE_PUSH_DEVICE_TOKEN";

const CODES = new Set<string>([
	"BAD_REQUEST",
	"REQUEST_VARIABLE_MISSING",
	"REQUEST_VARIABLE_INVALID",
	"INVALID_JSON",
	"UNAUTHORIZED",
	"USER_DEACTIVATED",
	"REALM_DEACTIVATED",
	"AUTHENTICATION_FAILED",
	"UNAUTHORIZED_PRINCIPAL",
	"NOT_FOUND",
	"METHOD_NOT_ALLOWED",
	"RATE_LIMIT_HIT",
	"CSRF_FAILED",
	"STREAM_DOES_NOT_EXIST",
	"REACTION_DOES_NOT_EXIST",
	"REACTION_ALREADY_EXISTS",
	"INVITATION_FAILED",
	"BAD_NARROW",
	"BAD_EVENT_QUEUE_ID",
	"CANNOT_DEACTIVATE_LAST_USER",
	"REALM_UPLOAD_QUOTA",
	"BAD_IMAGE",
	"INTERNAL_SERVER_ERROR",
	"SERVICE_UNAVAILABLE",
	"OUTCOME_UNKNOWN",
	"MISSING_HTTP_EVENT_HEADER",
	"UNSUPPORTED_WEBHOOK_EVENT_TYPE",
	"ANOMALOUS_WEBHOOK_PAYLOAD",
	"INVALID_PUSH_DEVICE_TOKEN",
	"INVALID_REMOTE_PUSH_DEVICE_TOKEN",
] satisfies ErrorCode[]);

export type ErrorExtra = Record<string, unknown>;

export function apiError(status: number, code: ErrorCode, msg: string, extra: ErrorExtra = {}): Errors.MoleculerClientError {
	// MoleculerClientError marks statuses >= 500 as retryable only when we say so; API errors never are.
	return new Errors.MoleculerClientError(msg, status, code, extra);
}

/** A write that reached its service and whose outcome cannot be known (services/api/lost-answers.ts): not the 503 that means "not done". */
export const outcomeUnknown = () =>
	apiError(504, "OUTCOME_UNKNOWN", "The request reached the server, but whether it was carried out is unknown: check before trying again");

export const badRequest = (msg: string, extra?: ErrorExtra) => apiError(400, "BAD_REQUEST", msg, extra);

export const missingArgument = (name: string) =>
	apiError(400, "REQUEST_VARIABLE_MISSING", `Missing '${name}' argument`, { var_name: name });

export const invalidArgument = (name: string) => badRequest(`Invalid ${name}`);

export const notFound = (msg = "Not Found") => apiError(404, "NOT_FOUND", msg);

/** Zulip's json_method_not_allowed: the body names the allowed methods, as the Allow header does. */
export const methodNotAllowed = (allowed: string[]) => apiError(405, "METHOD_NOT_ALLOWED", "Method Not Allowed", { allowed_methods: allowed });

export const notLoggedIn = () =>
	apiError(401, "UNAUTHORIZED", "Not logged in: API authentication or user session required");

/**
 * Any refusal of HTTP basic auth credentials, as Zulip's authenticated_rest_api_view answers them:
 * 401 UNAUTHORIZED with the reason ("Invalid API key", "Malformed API key", "Account is
 * deactivated", "This organization has been deactivated", ...).
 */
export const unauthorized = (msg: string) => apiError(401, "UNAUTHORIZED", msg);

export const userDeactivated = () => apiError(401, "USER_DEACTIVATED", "Account is deactivated");

export const realmDeactivated = () => apiError(401, "REALM_DEACTIVATED", "This organization has been deactivated");

export const authenticationFailed = () =>
	apiError(401, "AUTHENTICATION_FAILED", "Your username or password is incorrect");

export const rateLimited = (retryAfterSeconds: number) =>
	apiError(429, "RATE_LIMIT_HIT", "API usage exceeded rate limit", { "retry-after": retryAfterSeconds });

/** Zulip's CsrfFailureError: a form posted from another site (`reason` in Django's words). */
export const csrfFailed = (reason: string) => apiError(403, "CSRF_FAILED", `CSRF error: ${reason}`, { reason });

export const adminRequired = () => apiError(400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");

export const ownerRequired = () => apiError(400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");

export const insufficientPermission = () => badRequest("Insufficient permission");

/** Zulip's require_non_guest_user. */
export const guestNotAllowed = () => badRequest("Not allowed for guest users");

/** The error body and status the gateway sends for any thrown value. */
export interface RenderedError {
	status: number;
	body: { result: "error"; msg: string; code: string } & ErrorExtra;
	headers: Record<string, string>;
}

interface ErrorLike {
	name?: string;
	message?: string;
	code?: unknown;
	type?: unknown;
	status?: unknown;
	data?: unknown;
}

/**
 * The driver's errors when no database member can take the call (a replica set electing a new
 * primary, a store that is down): temporary, so 503 like a service that cannot be reached.
 */
const DATABASE_UNAVAILABLE = new Set([
	"MongoServerSelectionError",
	"MongoNetworkError",
	"MongoNetworkTimeoutError",
	"MongoNotPrimaryError",
	"MongoTopologyClosedError",
	"MongoPoolClearedError",
	"MongoServerClosedError",
]);

/**
 * A connection cut under a call, as a plain system error: the driver passes a write to a socket
 * the store has already closed on as the socket's own EPIPE, unwrapped (seen when the store is
 * killed under load). Only the database's connections reach an action's code this way; calls to
 * other services travel as Moleculer errors.
 */
const CONNECTION_LOST = new Set(["EPIPE", "ECONNRESET", "ECONNREFUSED"]);

/**
 * Whether `err` is one of DATABASE_UNAVAILABLE or a lost connection, or wraps one: a bulk write
 * (insertMany) cut by a store that went away fails as MongoBulkWriteError with the network error
 * as its errorResponse.
 */
export function databaseUnavailable(err: unknown, depth = 0): boolean {
	if (!err || typeof err !== "object" || depth > 3) return false;
	const e = err as { name?: unknown; code?: unknown; cause?: unknown; errorResponse?: unknown };
	if (DATABASE_UNAVAILABLE.has(String(e.name)) || (e.name === "Error" && CONNECTION_LOST.has(String(e.code)))) return true;
	return databaseUnavailable(e.cause, depth + 1) || databaseUnavailable(e.errorResponse, depth + 1);
}

/** fastest-validator's error types, mapped to Zulip's wording for a parameter of that kind. */
function validationMessage(item: { type: string; field: string; expected?: unknown }): string {
	const { type, field, expected } = item;
	if (type === "number" || type === "numberInteger") return `${field} is not an integer`;
	if (type === "boolean") return `${field} is not a boolean`;
	if (type === "string") return `${field} is not a string`;
	if (type === "array") return `${field} is not a list`;
	if (type === "object") return `${field} is not a dict`;
	if (type === "stringMax") return `${field} is too long (limit: ${expected} characters)`;
	if (type === "arrayMax") return `${field} has too many elements (limit: ${expected})`;
	if (type === "stringEmpty" || (type === "stringMin" && expected === 1)) return `${field} cannot be blank`;
	return `Invalid ${field}`;
}

export function renderError(err: unknown): RenderedError {
	const e = (err ?? {}) as ErrorLike;
	const headers: Record<string, string> = {};
	let status = 500;
	let body: RenderedError["body"] = { result: "error", msg: "Internal server error", code: "INTERNAL_SERVER_ERROR" };

	if (e.name === "MoleculerClientError" && typeof e.type === "string" && CODES.has(e.type) && typeof e.code === "number") {
		status = e.code;
		const extra = e.data && typeof e.data === "object" ? (e.data as ErrorExtra) : {};
		body = { ...extra, result: "error", msg: String(e.message), code: e.type };
	} else if (e.type === "VALIDATION_ERROR" && Array.isArray(e.data) && e.data.length > 0) {
		// A parameter failed the action's declared rules (see shared/params.ts).
		status = 400;
		const first = e.data[0] as { type: string; field: string; expected?: unknown };
		body =
			first.type === "required"
				? { result: "error", msg: `Missing '${first.field}' argument`, code: "REQUEST_VARIABLE_MISSING", var_name: first.field }
				: { result: "error", msg: validationMessage(first), code: "BAD_REQUEST" };
	} else if (e.type === "SERVICE_NOT_FOUND" || e.type === "SERVICE_NOT_AVAILABLE" || e.type === "REQUEST_TIMEOUT" || e.type === "REQUEST_REJECTED" || databaseUnavailable(err)) {
		// REQUEST_REJECTED: the node answering went away (or the NATS connection did) mid-call.
		// The database errors: no member could take the call within the driver's selection timeout.
		status = 503;
		body = { result: "error", msg: "Service temporarily unavailable", code: "SERVICE_UNAVAILABLE" };
	} else if (e.code === 413 || e.status === 413 || e.type === "PAYLOAD_TOO_LARGE" || e.type === "entity.too.large" || e.type === "parameters.too.many") {
		status = 413;
		body = { result: "error", msg: "Request body too large", code: "BAD_REQUEST" };
	} else if (e.type === "charset.unsupported") {
		// body-parser (its errors reach us wrapped by moleculer-web: `code` holds the status or the
		// cause's code, `type` body-parser's kind): a charset it cannot decode.
		status = 415;
		body = { result: "error", msg: "Unsupported charset: request bodies must be UTF-8", code: "BAD_REQUEST" };
	} else if (e.type === "encoding.unsupported") {
		status = 415;
		body = { result: "error", msg: "Unsupported Content-Encoding: use gzip, deflate or br", code: "BAD_REQUEST" };
	} else if (
		e.status === 400 ||
		e.type === "entity.parse.failed" ||
		e.type === "request.size.invalid" ||
		e.type === "request.aborted" ||
		(typeof e.code === "string" && (e.code.startsWith("Z_") || e.code.startsWith("ERR__ERROR")))
	) {
		// body-parser: a JSON body that does not parse, a compressed body that does not
		// decompress (zlib's Z_* codes, brotli's ERR__ERROR_*), a body shorter or longer than
		// announced.
		status = 400;
		body = { result: "error", msg: "Malformed request body", code: "BAD_REQUEST" };
	} else if (e.code === 404) {
		// moleculer-web's own "no route" error, for paths outside /api/v1.
		status = 404;
		body = { result: "error", msg: "Not Found", code: "NOT_FOUND" };
	} else if (e.name === "BadRequestError" || e.name === "URIError") {
		// moleculer-web could not decode the path.
		status = 400;
		body = { result: "error", msg: "Malformed URL", code: "BAD_REQUEST" };
	}

	if (status === 401) headers["WWW-Authenticate"] = 'Basic realm="zulip"';
	// Every 503 is temporary (a store restarting, a service away): a second, unless the error says.
	if (status === 429 || status === 503) headers["Retry-After"] = String(Math.ceil(Number(body["retry-after"]) || 1));
	return { status, body, headers };
}
