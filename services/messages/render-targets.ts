// What rendering a message needs from other services: the users and groups it mentions, and the
// channels it links to, each in one call.
import { call, type Ctx } from "../../shared/actions";
import type { GroupGraph } from "../../shared/group-settings";
import { mentionCandidates, type MentionTargets } from "../../shared/markdown/mentions";
import { channelLinkCandidates, type ChannelLinks } from "../../shared/markdown/zulip-markdown";

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
