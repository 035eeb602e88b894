// The gateway's routes for custom emoji and avatars, outside /api/v1 as in Zulip:
// `/user_avatars/{path}` sends a stored image to anyone (the decision is in
// shared/public-images.ts), and `/avatar/{user_id_or_email}[/medium]` redirects (302) to a user's
// avatar, as Zulip's avatar view, for an authenticated caller.
import type { ServerResponse } from "node:http";
import type { Context } from "moleculer";
import { call, type Identity, type Meta, type OpenedFile } from "../../shared/actions";
import { notFound } from "../../shared/errors";
import { PUBLIC_IMAGES_PATH } from "../../shared/public-images";

export { PUBLIC_IMAGES_PATH };
export const AVATAR_PATH = "/avatar";

/** The image a URL under /user_avatars names (`rest`: the path after the prefix). */
export async function openPublicImage(ctx: Context<unknown, Meta>, rest: string): Promise<OpenedFile> {
	let path: string;
	try {
		path = rest.replace(/^\/+/, "").split("/").map(decodeURIComponent).join("/");
	} catch {
		throw notFound("File not found.");
	}
	if (!path || path.length > 2000) throw notFound("File not found.");
	return call(ctx, "uploads.openImage", { path });
}

/**
 * Answers `/avatar/{user_id_or_email}` or `/avatar/{...}/medium` (`rest`: after /avatar, with its
 * query string) with a redirect to the avatar, the request's query string appended as Zulip does.
 */
export async function redirectToAvatar(ctx: Context<unknown, Meta>, res: ServerResponse, rest: string, user: Identity, headers: Record<string, string | number>): Promise<void> {
	const q = rest.indexOf("?");
	const path = q < 0 ? rest : rest.slice(0, q);
	const query = q < 0 ? "" : rest.slice(q + 1);
	const segments = path.split("/").slice(1);
	const medium = segments.length === 2 && segments[1] === "medium";
	if (!(segments.length === 1 || medium) || !segments[0]) throw notFound();
	let who: string;
	try {
		who = decodeURIComponent(segments[0]);
	} catch {
		throw notFound();
	}
	if (who.length > 320) throw notFound();
	const { url } = await call(ctx, "users.avatarRedirect", { user_id_or_email: who, medium }, { meta: { user } });
	const location = query ? `${url}${url.includes("?") ? "&" : "?"}${query}` : url;
	res.writeHead(302, { ...headers, Location: location, "Content-Length": 0 });
	res.end();
}
