// Size bounds on parameters Zulip takes without one of its own: identifiers the client makes up
// (queue and local IDs, client names), names from a fixed vocabulary (event types), and values a
// request may send only to have them ignored (`subject` beside `topic`). Without a bound such a
// value could be as large as the body limit. Each bound is far beyond anything a real client
// sends; where Zulip words its own limit (a topic's 60 characters), the bound sits above it so a
// value between the two still gets Zulip's words from the handler.
import { p } from "./params";

/** A client-made identifier: an event queue ID (Zulip's are "<start>:<counter>"), a local ID, a client name. */
export const IDENTIFIER_MAX = 100;

/** One event type name (Zulip's longest is under 40 characters). */
export const EVENT_TYPE_MAX = 100;

/** How many event types one list may name (Zulip has fewer than 100 types). */
export const EVENT_TYPES_COUNT_MAX = 200;

/** A topic under its legacy name `subject`: above Zulip's 60, which the handler words. */
export const SUBJECT_MAX = 1_000;

/** A widget's JSON (Zulip's `widget_content`): as long as a message's content may be. */
export const WIDGET_CONTENT_MAX = 10_000;

/** `event_types` and `fetch_event_types` (POST /register, GET /events). */
export const eventTypesParam = p.stringList({ optional: true, max: EVENT_TYPES_COUNT_MAX, itemMax: EVENT_TYPE_MAX });
