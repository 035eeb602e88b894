// Following and unmuting topics automatically, from each user's settings (Zulip's rules).
// automatically_follow_topics_policy and automatically_unmute_topics_in_muted_streams_policy say
// when: 1 when the user participates (sends, reacts, or votes or adds to a widget), 2 when they send, 3 when they start the
// topic, 4 never. automatically_follow_topics_where_mentioned follows topics they are mentioned in.
// The channels service owns the policies and applies what is asked (channels.autoTopicVisibility).
import { call, type Ctx, type Identity } from "../../shared/actions";

export const AUTO_SETTINGS = ["automatically_follow_topics_policy", "automatically_unmute_topics_in_muted_streams_policy", "automatically_follow_topics_where_mentioned"];

/** What a user did in the topic ("react" also stands for a submessage on a widget: taking part without sending). */
export type Act = "start" | "send" | "react" | "mentioned";

export function wanted(settings: Record<string, unknown>, act: Act): { follow: boolean; unmute: boolean } {
	if (act === "mentioned") return { follow: settings.automatically_follow_topics_where_mentioned === true, unmute: false };
	const applies = (policy: unknown) => policy === 1 || (policy === 2 && act !== "react") || (policy === 3 && act === "start");
	return { follow: applies(settings.automatically_follow_topics_policy), unmute: applies(settings.automatically_unmute_topics_in_muted_streams_policy) };
}

const CACHE_LIMIT = 10_000;

/**
 * Applies the users' settings to what they did in a topic; returns the policies that changed.
 * Settings are cached per user (most sends need only the sender's) and dropped on change.
 */
export class AutoFollow {
	private settings = new Map<number, Record<string, unknown>>();

	forget(userId: number): void {
		this.settings.delete(userId);
	}

	/** `channelMuted: false` says the user has not muted the channel, so unmuting cannot apply. */
	async apply(ctx: Ctx<any>, channelId: number, topic: string, acts: Array<{ user: Pick<Identity, "user_id">; act: Act; channelMuted?: boolean }>): Promise<Map<number, number>> {
		const missing = [...new Set(acts.map((a) => a.user.user_id))].filter((id) => !this.settings.has(id));
		if (missing.length) {
			const { values } = await call(ctx, "users.settingsOf", { user_ids: missing, names: AUTO_SETTINGS });
			if (this.settings.size + missing.length > CACHE_LIMIT) this.settings.clear();
			for (const id of missing) this.settings.set(id, values[String(id)] ?? {});
		}
		const follow = new Set<number>();
		const unmute = new Set<number>();
		for (const { user, act, channelMuted } of acts) {
			const w = wanted(this.settings.get(user.user_id)!, act);
			if (w.follow) follow.add(user.user_id);
			else if (w.unmute && channelMuted !== false) unmute.add(user.user_id);
		}
		for (const id of follow) unmute.delete(id);
		if (!follow.size && !unmute.size) return new Map();
		const { changed } = await call(ctx, "channels.autoTopicVisibility", { channel_id: channelId, topic, follow: [...follow], unmute: [...unmute] });
		return new Map(changed.map((c) => [c.user_id, c.visibility_policy]));
	}
}
