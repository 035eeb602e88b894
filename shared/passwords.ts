// Password hashing with scrypt (a slow, memory-hard KDF from Node's crypto), and API keys.
import { randomBytes, scrypt, timingSafeEqual, ScryptOptions } from "node:crypto";

const PARAMS: ScryptOptions = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEYLEN = 64;

function derive(password: string, salt: Buffer, keylen = KEYLEN, params = PARAMS): Promise<Buffer> {
	return new Promise((resolve, reject) =>
		scrypt(password.normalize("NFKC"), salt, keylen, params, (err, key) => (err ? reject(err) : resolve(key))),
	);
}

/** `scrypt$N$r$p$salt$hash`, base64 parts; the parameters travel with the hash. */
export async function hashPassword(password: string): Promise<string> {
	const salt = randomBytes(16);
	const key = await derive(password, salt);
	return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64"), key.toString("base64")].join("$");
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
	if (!stored) return false;
	const [scheme, n, r, p, salt, hash] = stored.split("$");
	if (scheme !== "scrypt" || !salt || !hash) return false;
	const expected = Buffer.from(hash, "base64");
	const key = await derive(password, Buffer.from(salt, "base64"), expected.length, {
		N: Number(n),
		r: Number(r),
		p: Number(p),
		maxmem: PARAMS.maxmem,
	});
	return timingSafeEqual(key, expected);
}

const ALPHANUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A random alphanumeric string (Zulip's API keys are 32 such characters). */
export function randomToken(length = 32): string {
	const bytes = randomBytes(length * 2);
	let out = "";
	// Rejection sampling keeps every character equally likely.
	for (let i = 0; i < bytes.length && out.length < length; i++) {
		if (bytes[i] < 248) out += ALPHANUM[bytes[i] % 62];
	}
	return out.length === length ? out : out + randomToken(length - out.length);
}

export const API_KEY_PATTERN = /^[A-Za-z0-9]{32}$/;
