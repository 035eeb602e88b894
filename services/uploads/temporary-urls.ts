// Temporary URLs (GET /user_uploads/{realm_id}/{filename} under /api/v1): a link to one file that
// works without credentials for a minute, as Zulip's signed local-storage URLs. The token is
// `<path>:<expiry>` signed with HMAC-SHA256 under a key every replica reads from the database, hex
// encoded as Zulip's are.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { Connection, Schema } from "mongoose";
import { clock } from "../../shared/clock";
import { createOnce } from "../../shared/db";

/** How long a temporary URL works (Zulip: 60 seconds). */
export const TEMPORARY_URL_SECONDS = 60;

interface KeyDoc {
	_id: string;
	key: string;
}

const schema = new Schema<KeyDoc>({ _id: String, key: String }, { versionKey: false });

/**
 * The signing key, made once by whichever replica starts first, then shared: a unique insert (on
 * every store only one succeeds), then the stored key is read, whoever wrote it.
 */
export async function signingKey(conn: Connection): Promise<Buffer> {
	const Keys = conn.model<KeyDoc>("SigningKey", schema, "signing_keys");
	await createOnce(Keys, { _id: "temporary-urls", key: randomBytes(32).toString("base64") });
	const doc = await Keys.findById("temporary-urls").lean();
	return Buffer.from(doc!.key, "base64");
}

const mac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest("base64url");

export function temporaryToken(key: Buffer, pathId: string): string {
	const text = `${pathId}:${Math.floor(clock.nowMs() / 1000) + TEMPORARY_URL_SECONDS}`;
	return Buffer.from(`${text}:${mac(key, text)}`).toString("hex").toUpperCase();
}

/** The path a token names, or null when it is forged, malformed or expired. */
export function pathOfToken(key: Buffer, token: string): string | null {
	if (!/^(?:[0-9A-Fa-f]{2})+$/.test(token)) return null;
	const signed = Buffer.from(token, "hex").toString("utf8");
	const cut = signed.lastIndexOf(":");
	if (cut < 0) return null;
	const text = signed.slice(0, cut);
	const given = Buffer.from(signed.slice(cut + 1));
	const expected = Buffer.from(mac(key, text));
	if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
	const at = text.lastIndexOf(":");
	const expiry = Number(text.slice(at + 1));
	if (!Number.isSafeInteger(expiry) || expiry * 1000 < clock.nowMs()) return null;
	return text.slice(0, at);
}
