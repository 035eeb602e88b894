// POST /users/me/subscriptions/properties: the caller's own settings for channels they are
// subscribed to. Every item is checked before any is written.
import { badRequest } from "../../shared/errors";
import type { ChannelsDb } from "./db";
import { subscriptionKey } from "./models/subscription";

export interface PropertyChange {
	stream_id: number;
	property: string;
	value: unknown;
}

const BOOLEAN = new Set(["is_muted", "in_home_view", "pin_to_top"]);
const NULLABLE_BOOLEAN = new Set(["desktop_notifications", "audible_notifications", "push_notifications", "email_notifications", "wildcard_mentions_notify"]);

/** Returns the changes as stored (color lowercased), for the subscription update events. */
export async function updateProperties(db: ChannelsDb, userId: number, changes: PropertyChange[]): Promise<PropertyChange[]> {
	const keys = [...new Set(changes.map((c) => subscriptionKey(userId, c.stream_id)))];
	const subscribed = new Set((await db.Subscription.find({ _id: { $in: keys }, active: true }, { _id: 1 }).lean()).map((s) => s._id));
	const updates = new Map<string, Record<string, unknown>>();
	const stored: PropertyChange[] = [];
	for (const { stream_id, property, value } of changes) {
		const key = subscriptionKey(userId, stream_id);
		if (!subscribed.has(key)) throw badRequest(`Not subscribed to channel ID ${stream_id}`);
		const set = updates.get(key) ?? {};
		if (property === "color") {
			if (typeof value !== "string" || !/^#[0-9a-fA-F]{6}$/.test(value)) throw badRequest("color is not a valid hex color code");
			set.color = value.toLowerCase();
			stored.push({ stream_id, property, value: set.color });
		} else if (BOOLEAN.has(property) || NULLABLE_BOOLEAN.has(property)) {
			if (typeof value !== "boolean" && !(value === null && NULLABLE_BOOLEAN.has(property))) throw badRequest(`${property} is not a boolean`);
			// in_home_view is the older, inverted name of is_muted.
			if (property === "in_home_view") set.is_muted = !value;
			else set[property] = value;
			stored.push({ stream_id, property, value });
		} else {
			throw badRequest(`Unknown subscription property: ${property}`);
		}
		updates.set(key, set);
	}
	if (updates.size) {
		await db.Subscription.bulkWrite([...updates].map(([key, set]) => ({ updateOne: { filter: { _id: key }, update: { $set: set } } })));
	}
	return stored;
}
