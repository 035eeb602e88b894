// What rendering a message needs from other services: the users and groups it mentions, the
// channels it links to, and the uploaded images it links, each in one call.
import { call, type Ctx } from "../../shared/actions";
import type { GroupGraph } from "../../shared/group-settings";
import { mentionCandidates, type MentionTargets } from "../../shared/markdown/mentions";
import { channelLinkCandidates, type ChannelLinks } from "../../shared/markdown/zulip-markdown";
import { uploadPathCandidates, type ImagePreviews } from "../../shared/markdown/image-previews";

/** Everyone and every group the content mentions, in one call to the users service. */
export async function mentionTargets(ctx: Ctx<any>, graph: GroupGraph, content: string): Promise<MentionTargets> {
	const wanted = mentionCandidates(content);
	const targets: MentionTargets = { usersById: new Map(), usersByName: new Map(), groupsByName: new Map() };
	for (const name of wanted.groups) {
		const g = graph.byName(name);
		if (g && !g.deactivated && !name.startsWith("role:")) targets.groupsByName.set(name, { id: g.id, name: g.name });
	}
	if (wanted.names.length || wanted.ids.length) {
		const { users } = await call(ctx, "users.mentionTargets", wanted);
		for (const u of users) {
			targets.usersById.set(u.id, u);
			if (u.unique_name) targets.usersByName.set(u.full_name, u);
		}
	}
	return targets;
}

/** The channels a message links to (one call for all of them). */
export async function channelLinks(ctx: Ctx<any>, content: string): Promise<ChannelLinks> {
	const names = channelLinkCandidates(content);
	if (!names.length) return new Map();
	const { channels } = await call(ctx, "channels.linkTargets", { names });
	return new Map(channels.map((c) => [c.name.toLowerCase(), c]));
}

/** What the uploaded images a message links show (one call for all of them; none when it links no upload). */
export async function imagePreviews(ctx: Ctx<any>, realmId: number, content: string): Promise<ImagePreviews> {
	const pathIds = uploadPathCandidates(content);
	if (!pathIds.length) return new Map();
	const { previews } = await call(ctx, "uploads.previews", { realm_id: realmId, path_ids: pathIds });
	return new Map(Object.entries(previews));
}
