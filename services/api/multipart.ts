// multipart/form-data request bodies, which Zulip (Django) reads as it reads url-encoded ones:
// zulip-js sends every POST this way. Only text fields become parameters; files are dropped, as
// an endpoint that takes no file ignores them in Zulip.
import { apiError, badRequest } from "../../shared/errors";

export const MULTIPART_TYPE = "multipart/form-data";
/** As many fields as the url-encoded parser takes. */
const MAX_FIELDS = 10_000;

/** The body's text fields as flat name/value pairs (the last of repeated names wins, as in Django). */
export async function multipartFields(body: Buffer, contentType: string): Promise<Record<string, string>> {
	let form: FormData;
	try {
		form = await new Response(new Uint8Array(body.buffer, body.byteOffset, body.byteLength), { headers: { "content-type": contentType } }).formData();
	} catch {
		throw badRequest("Malformed multipart/form-data body");
	}
	const out: Record<string, string> = {};
	let count = 0;
	for (const [name, value] of form) {
		if (++count > MAX_FIELDS) throw apiError(413, "BAD_REQUEST", "Request body too large");
		if (typeof value === "string") Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
	}
	return out;
}
