// Each user's newest message ID (GET /users/me's max_message_id), kept per replica so that the
// profile costs no query: loaded once, raised by every message sent to the user, dropped where
// rows may have gone (deletions, moves). Those changes arrive as broadcasts every replica hears;
// the TTL bounds what none announces (a row made `historical` by starring or reacting to an old
// message, data written into the store by hand).
export class MaxMessageIds {
	private known = new Map<number, { id: number; expires: number }>();
	/** Counts the changes heard, so that a load that raced one is not kept. */
	private changes = 0;

	constructor(
		private load: (userId: number) => Promise<number>,
		private now: () => number,
		private ttlMs = 10_000,
		private maxEntries = 100_000,
	) {}

	async get(userId: number): Promise<number> {
		const known = this.known.get(userId);
		if (known && known.expires > this.now()) return known.id;
		const changes = this.changes;
		const id = await this.load(userId);
		if (changes === this.changes) {
			if (this.known.size >= this.maxEntries) this.known.clear();
			this.known.set(userId, { id, expires: this.now() + this.ttlMs });
		}
		return id;
	}

	/** A message stored for these users: their newest is at least `messageId` now. */
	sent(messageId: number, userIds: number[]): void {
		this.changes++;
		for (const u of userIds) {
			const known = this.known.get(u);
			if (known && known.id < messageId) known.id = messageId;
		}
	}

	/** Some of these users' rows may be gone (anyone's, without a list). */
	forget(userIds?: number[]): void {
		this.changes++;
		if (!userIds) this.known.clear();
		else for (const u of userIds) this.known.delete(u);
	}
}
