// Push notification device registration, as Zulip's zerver/views/push_notifications.py and
// add_push_device_token / remove_push_device_token: tokens are validated and kept per user, kind
// and token (the bouncer hears of them through the notifications service: push-devices/actions.ts).
import { isDuplicateKey } from "../../../shared/db";
import { badRequest } from "../../../shared/errors";
import type { UsersDb } from "../db";
import { PUSH_KIND } from "./push-device-model";

/** Zulip's bound on a token's length. */
export const MAX_TOKEN_LENGTH = 4096;

const BASE64 = /[A-Za-z0-9+/]/;

/**
 * Whether Python's base64.b64decode (not strict: characters outside the alphabet are skipped)
 * decodes the text, as Zulip's b64_to_hex needs: ASCII only, and the data characters before the
 * padding a whole number of groups, or padded to one.
 */
function decodesAsBase64(text: string): boolean {
	if (!/^[\x00-\x7f]*$/.test(text)) return false;
	let data = 0;
	let pads = 0;
	for (const c of text) {
		if (c === "=") {
			// Python counts padding only after two data characters of a group.
			if (data % 4 >= 2) {
				pads++;
				if (data % 4 === 2 ? pads >= 2 : pads >= 1) return true;
			}
			continue;
		}
		if (!BASE64.test(c)) continue;
		data++;
	}
	return data % 4 === 0;
}

/** Zulip's validate_token. */
export function validateToken(token: string, kind: number): void {
	// Python counts code points; a token over the bound in UTF-16 units is counted again.
	if (token === "" || (token.length > MAX_TOKEN_LENGTH && [...token].length > MAX_TOKEN_LENGTH)) throw badRequest("Empty or invalid length token");
	if (kind === PUSH_KIND.apns && !decodesAsBase64(token)) throw badRequest("Invalid APNS token");
}

/** Zulip's check for an iOS app ID. */
export function validateAppId(appid: string): void {
	if (!/^[.a-zA-Z0-9-]+$/.test(appid)) throw badRequest("Invalid app ID");
}

/** Registers the token; registering it again changes nothing (Zulip's ignore_conflicts). */
export async function addPushDevice(db: UsersDb, userId: number, kind: number, token: string, iosAppId: string | null): Promise<void> {
	try {
		await db.PushDevice.updateOne(
			{ user_id: userId, kind, token },
			{ $setOnInsert: { ios_app_id: iosAppId, last_updated: new Date() } },
			{ upsert: true },
		);
	} catch (err) {
		// The same token registered twice at once: the other request stored it.
		if (!isDuplicateKey(err)) throw err;
	}
}

export async function removePushDevice(db: UsersDb, userId: number, kind: number, token: string): Promise<void> {
	const res = await db.PushDevice.deleteOne({ user_id: userId, kind, token });
	if (!res.deletedCount) throw badRequest("Token does not exist");
}
