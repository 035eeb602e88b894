// Zulip's presence rules (zerver/actions/presence.py, zerver/lib/presence.py) as plain functions:
// what a report changes, when it is news to others, and the two forms clients read.

/** Zulip's server settings, also told to clients in POST /register. */
export const PRESENCE_PING_INTERVAL_SECS = 60;
export const OFFLINE_THRESHOLD_SECS = 200;
/** A report changes a stored time only when that time is older than this. */
const PRESENCE_UPDATE_MIN_FREQ_SECONDS = 55;
/** Legacy form: "active" when the last active report is at most this older than the last connection. */
const LEGACY_ACTIVE_OFFSET_SECONDS = 70;
/** Beyond this many active users, only forced changes (presence_enabled toggled) are announced. */
export const USER_LIMIT_FOR_PRESENCE_EVENTS = 100;
/** How far back presence goes when a client does not say (history_limit_days). */
export const DEFAULT_HISTORY_DAYS = 14;

export type PresenceStatus = "active" | "idle";

export interface PresenceTimes {
	last_active_time: Date | null;
	last_connected_time: Date;
}

export interface PresencePlan {
	/** No document yet: this report creates it. */
	creating: boolean;
	/** The times to store (all of them when creating); empty when nothing changes. */
	set: Partial<PresenceTimes>;
	/** Active after long enough away that others would show the user offline. */
	becameOnline: boolean;
}

const DAY_MS = 86_400_000;

/** Zulip's do_update_user_presence, deciding only: what one report changes. */
export function planPresence(stored: PresenceTimes | null, now: Date, status: PresenceStatus): PresencePlan {
	const active = status === "active";
	if (!stored) return { creating: true, set: { last_active_time: active ? now : null, last_connected_time: now }, becameOnline: active };
	const sinceActive = stored.last_active_time ? now.getTime() - stored.last_active_time.getTime() : DAY_MS;
	const sinceConnected = now.getTime() - stored.last_connected_time.getTime();
	const set: Partial<PresenceTimes> = {};
	if (sinceConnected > PRESENCE_UPDATE_MIN_FREQ_SECONDS * 1000) set.last_connected_time = now;
	if (active && sinceActive > PRESENCE_UPDATE_MIN_FREQ_SECONDS * 1000) {
		set.last_active_time = now;
		if (now > stored.last_connected_time) set.last_connected_time = now;
	}
	const awayMs = (OFFLINE_THRESHOLD_SECS - PRESENCE_PING_INTERVAL_SECS - 10) * 1000;
	return { creating: false, set, becameOnline: active && sinceActive > awayMs };
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** A missing time reads as the day the user joined, as Zulip's API shows it. */
function shown(times: PresenceTimes, joined: Date) {
	return { active: times.last_active_time ?? joined, connected: times.last_connected_time ?? joined };
}

/** The modern form: `{active_timestamp, idle_timestamp}`. */
export function modernPresence(times: PresenceTimes, joined: Date): { active_timestamp: number; idle_timestamp: number } {
	const t = shown(times, joined);
	return { active_timestamp: seconds(t.active), idle_timestamp: seconds(t.connected) };
}

/** The legacy per-client object (always "website" since Zulip 7.0). */
export function legacyClientPresence(times: PresenceTimes, joined: Date) {
	const t = shown(times, joined);
	const active = t.active.getTime() + LEGACY_ACTIVE_OFFSET_SECONDS * 1000 >= t.connected.getTime();
	return { client: "website", status: active ? "active" : "idle", timestamp: seconds(active ? t.active : t.connected), pushable: false };
}

/** The legacy form: the one client, and `aggregated` (the same, without pushable). */
export function legacyPresence(times: PresenceTimes, joined: Date) {
	const website = legacyClientPresence(times, joined);
	return { aggregated: { client: website.client, status: website.status, timestamp: website.timestamp }, website };
}

/** The legacy form as GET /users/{id}/presence shows it: no client names, offline when stale. */
export function singleUserLegacyPresence(times: PresenceTimes, joined: Date, nowMs: number) {
	const { aggregated, website } = legacyPresence(times, joined);
	const stale = Math.floor(nowMs / 1000) - aggregated.timestamp > OFFLINE_THRESHOLD_SECS;
	return { aggregated: { status: stale ? "offline" : aggregated.status, timestamp: aggregated.timestamp }, website: { status: website.status, timestamp: website.timestamp } };
}

/**
 * The earliest last connection a query wants, for history_limit_days (any integer, as Zulip
 * takes it; a span beyond the representable dates means no limit, or nothing).
 */
export function connectedSince(nowMs: number, historyLimitDays: number | undefined): Date {
	const since = nowMs - (historyLimitDays ?? DEFAULT_HISTORY_DAYS) * DAY_MS;
	return new Date(Math.min(Math.max(since, 0), 8.64e15));
}
