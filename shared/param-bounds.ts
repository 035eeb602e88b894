// Size bounds on parameters Zulip takes without one of its own: identifiers the client makes up
// (queue and local IDs, client names, app IDs), names from a fixed vocabulary (event types, flags,
// emoji), and values a request may send only to have them ignored (`subject` beside `topic`).
// Without a bound such a value could be as large as the body limit, travel between services and
// be echoed back in an error. Each bound is far beyond anything a real client sends; where Zulip
// words its own limit (a topic's 60 characters), the bound sits above it, so a value between the
// two still gets Zulip's words from the handler.
import { p } from "./params";

/** A client-made identifier: an event queue ID (Zulip's are "<start>:<counter>"), a local ID, a client name, an app ID. */
export const IDENTIFIER_MAX = 100;

/** A name from a fixed vocabulary: an event type, a message flag, a presence status, an emoji's name, code or type. */
export const NAME_MAX = 100;

/** A login's `username`: an email address, at most 254 characters (RFC 5321; Zulip's email columns). */
export const USERNAME_MAX = 254;

/** A login's `password`: above the longest a password may be set to (100), so a longer one fails as a wrong one. */
export const PASSWORD_PARAM_MAX = 1_000;

/** A bot's `service_name`: Zulip's column for it (Service.name) holds 100 characters, its view checks nothing. */
export const SERVICE_NAME_MAX = 100;

/** How many event types one list may name (Zulip has fewer than 100 types). */
export const EVENT_TYPES_COUNT_MAX = 200;

/** A topic given as `subject`, or a topic or channel named to look it up: above Zulip's 60 (both), which the handlers word. */
export const TOPIC_PARAM_MAX = 1_000;

/** A widget's JSON (`widget_content`, a submessage's `content`): as long as a message's content may be. */
export const WIDGET_CONTENT_MAX = 10_000;

/** `event_types` and `fetch_event_types` (POST /register, GET /events). */
export const eventTypesParam = p.stringList({ optional: true, max: EVENT_TYPES_COUNT_MAX, itemMax: NAME_MAX });
