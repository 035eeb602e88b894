// Who muted a sender, for the send path (a muted user's new messages arrive read for the muter, as
// Zulip's get_muting_users): asked of the users service once per sender, then kept until
// users.mutesChanged names that sender, so a message costs no bus call for it.
/** Senders remembered at most; past it the cache starts over. */
const MAX_SENDERS = 10_000;

export class MuterCache {
	private readonly known = new Map<number, ReadonlySet<number>>();
	private changes = 0;

	/** The users who muted this sender; `load` asks the users service. */
	async of(senderId: number, load: () => Promise<number[]>): Promise<ReadonlySet<number>> {
		const hit = this.known.get(senderId);
		if (hit) return hit;
		const before = this.changes;
		const muters = new Set(await load());
		// A change heard meanwhile may be newer than this answer: it is used once, not kept.
		if (this.changes === before) {
			if (this.known.size >= MAX_SENDERS) this.known.clear();
			this.known.set(senderId, muters);
		}
		return muters;
	}

	/** Someone muted or unmuted this user. */
	changed(mutedUserId: number): void {
		this.changes++;
		this.known.delete(mutedUserId);
	}
}
