// Presence in the store: recording a report (one read, then at most one write stamped from the
// organization's counter, so any replica can answer "what changed since last_update_id"), and
// reading the organization's presence in either of Zulip's forms.
import { clock } from "../../../shared/clock";
import { createOnce } from "../../../shared/db";
import type { PresenceChanged } from "../../../shared/org-events";
import { activeUserIds, type UsersDb } from "../db";
import type { PresenceDoc } from "./presence-model";
import type { UserDoc } from "../models/user";
import { realmHost, realmSetting } from "../realm/realm-settings";
import { apiEmail } from "../user-view";
import {
	connectedSince,
	legacyClientPresence,
	legacyPresence,
	modernPresence,
	OFFLINE_THRESHOLD_SECS,
	planPresence,
	USER_LIMIT_FOR_PRESENCE_EVENTS,
	type PresenceStatus,
	type PresenceTimes,
} from "./presence-rules";

/** The counter of an organization's presence changes (Zulip's PresenceSequence). */
const sequence = (realmId: number) => `presence_sequence:${realmId}`;

/** What a user's presence needs of the user document. */
const USER_FIELDS = { _id: 1, realm_id: 1, delivery_email: 1, email_address_visibility: 1, is_bot: 1, is_active: 1, date_joined: 1 } as const;
export type PresenceUser = Pick<UserDoc, keyof typeof USER_FIELDS>;

const presenceDisabled = (db: UsersDb) => realmSetting<boolean>(db.realm, "realm_presence_disabled");

/**
 * Records one report, as Zulip's do_update_user_presence: the stored times change only when
 * older than Zulip's minimum interval, and each change takes the next value of the
 * organization's counter. Answers the change to announce, when Zulip announces one: the
 * document's creation or a return after being away, or any change when `force`d.
 */
export async function recordPresence(db: UsersDb, user: PresenceUser, status: PresenceStatus, now: Date, force = false): Promise<PresenceChanged | undefined> {
	const stored = await db.Presence.findById(user._id).lean();
	const plan = planPresence(stored, now, status);
	if (!Object.keys(plan.set).length) return undefined;
	const id = await db.nextId(sequence(user.realm_id));
	let times: PresenceTimes;
	if (plan.creating) {
		const doc = { realm_id: user.realm_id, ...(plan.set as PresenceTimes), last_update_id: id };
		// Two first reports at once: the first creates the document, the other changes nothing
		// (Zulip's ON CONFLICT DO NOTHING), decided by a unique insert, not by a racing upsert.
		if (!(await createOnce(db.Presence, { _id: user._id, ...doc } as PresenceDoc))) return undefined;
		times = doc;
	} else {
		// A later stamp already written (a concurrent report) is not overwritten by this one.
		await db.Presence.updateOne({ _id: user._id, last_update_id: { $lt: id } }, { $set: { ...plan.set, last_update_id: id } });
		times = { ...stored!, ...plan.set };
	}
	if (!force && (presenceDisabled(db) || !(plan.creating || plan.becameOnline))) return undefined;
	const user_ids = await activeUserIds(db);
	if (!force && user_ids.length > USER_LIMIT_FOR_PRESENCE_EVENTS) return undefined;
	const website = legacyClientPresence(times, user.date_joined);
	return {
		user_id: user._id,
		email: apiEmail(user, realmHost(db.realm)),
		server_timestamp: clock.nowMs() / 1000,
		presence: { website },
		modern: modernPresence(times, user.date_joined),
		user_ids,
	};
}

/**
 * Zulip's presence_enabled switched (do_change_user_setting): on, the user is active now; off,
 * the user's presence is replaced by one every client shows as offline (last connected a little
 * before the threshold). Either is announced to everyone.
 */
export async function switchPresence(db: UsersDb, user: PresenceUser, enabled: boolean, nowMs: number): Promise<PresenceChanged | undefined> {
	if (enabled) return recordPresence(db, user, "active", new Date(nowMs), true);
	await db.Presence.deleteOne({ _id: user._id });
	return recordPresence(db, user, "idle", new Date(nowMs - (OFFLINE_THRESHOLD_SECS + 120) * 1000), true);
}

export interface PresenceQuery {
	/** Keyed by user ID in the modern form, else by API email in the legacy form. */
	slim: boolean;
	/** The client's last_update_id: only what changed after it. */
	lastUpdateId?: number;
	historyLimitDays?: number;
	nowMs: number;
}

/**
 * The organization's presence, as Zulip's get_presences_for_realm: active human users' documents
 * connected within the history limit (or changed after the client's last_update_id), and the
 * newest stamp among them (the client's own, or -1, when there are none).
 */
export async function realmPresences(db: UsersDb, q: PresenceQuery): Promise<{ presences: Record<string, unknown>; last_update_id: number }> {
	if (presenceDisabled(db)) return { presences: {}, last_update_id: -1 };
	let rows: PresenceDoc[] = [];
	if (q.historyLimitDays !== 0) {
		const filter: Record<string, unknown> = { realm_id: db.realm._id };
		if (q.lastUpdateId !== undefined) filter.last_update_id = { $gt: q.lastUpdateId };
		if (q.lastUpdateId === undefined || q.lastUpdateId <= 0) filter.last_connected_time = { $gte: connectedSince(q.nowMs, q.historyLimitDays) };
		rows = await db.Presence.find(filter).lean();
	}
	const users = rows.length ? await db.User.find({ _id: { $in: rows.map((r) => r._id) } }, USER_FIELDS).lean() : [];
	const byId = new Map(users.filter((u) => u.is_active && !u.is_bot).map((u) => [u._id, u]));
	const host = realmHost(db.realm);
	const presences: Record<string, unknown> = {};
	let newest: number | undefined;
	for (const row of rows) {
		const u = byId.get(row._id);
		if (!u) continue;
		newest = Math.max(newest ?? row.last_update_id, row.last_update_id);
		if (q.slim) presences[String(u._id)] = modernPresence(row, u.date_joined);
		else presences[apiEmail(u, host)] = legacyPresence(row, u.date_joined);
	}
	return { presences, last_update_id: newest ?? q.lastUpdateId ?? -1 };
}
