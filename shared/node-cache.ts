// A per-node cache of a service's own stored documents for its hottest reads (the channels and
// subscriptions a message page is checked against, the senders it shows), kept by the owning
// service and cleaned by its own broadcasts, which every replica hears: a write on any node drops
// the entries it changed on every node.
//
// Three things could leave an entry stale, and each is guarded:
// - a load racing a change: a change heard while a load is out (`changes` moved) means the answer
//   may predate it, so it is used once and not kept (as messages/muter-cache.ts does);
// - a broadcast this node never heard because its NATS connection was down: nothing is cached
//   while it is down (`live`, shared/transport-recovery.ts), and everything is dropped when it
//   comes back (the other nodes then announce themselves again: `$node.connected`). Moleculer's
//   own `$transporter.connected` is no hook for that: its NATS transporter emits it once, at the
//   first connection; the NATS client reconnects by itself, unseen by Moleculer;
// - a broadcast sent before its sender knew this node listens (a node joining, or this one
//   reconnecting: discovery takes about a second): everything is dropped and nothing cached for
//   DISCOVERY_MS after `$node.connected` or `$transporter.connected`, as the gateway's credential
//   cache does.
// What remains is a write whose broadcast is never sent (its action failing between the write and
// the broadcast): that entry stays until the next change to it, a node event, or eviction.

/** How long caches stay off after a node joins or this node's transport (re)connects. */
export const DISCOVERY_MS = 3_000;

export class NodeCache<K, V> {
	private readonly entries = new Map<K, V>();
	private changes = 0;
	private pausedUntil = 0;
	/** False while this node may be missing broadcasts (its NATS connection down). */
	live: () => boolean = () => true;

	/** `max`: entries kept at most; past it the cache starts over. */
	constructor(private readonly max: number) {}

	private usable(): boolean {
		return this.live() && performance.now() >= this.pausedUntil;
	}

	/**
	 * The values of these keys: the cached ones, and the others from `load` (kept unless a change
	 * was heard meanwhile). A key `load` does not answer is absent, and not remembered as such.
	 */
	async getMany(keys: readonly K[], load: (missing: K[]) => Promise<Map<K, V>>): Promise<Map<K, V>> {
		const use = this.usable();
		const out = new Map<K, V>();
		const missing: K[] = [];
		for (const k of keys) {
			const hit = use ? this.entries.get(k) : undefined;
			if (hit !== undefined) out.set(k, hit);
			else missing.push(k);
		}
		if (!missing.length) return out;
		const before = this.changes;
		const loaded = await load(missing);
		const keep = use && this.changes === before && this.usable();
		for (const [k, v] of loaded) {
			out.set(k, v);
			if (keep) {
				if (this.entries.size >= this.max) this.entries.clear();
				this.entries.set(k, v);
			}
		}
		return out;
	}

	/** One key's value (`load` answers it whole). */
	async get(key: K, load: () => Promise<V>): Promise<V> {
		return (await this.getMany([key], async () => new Map([[key, await load()]]))).get(key)!;
	}

	/** These keys changed. */
	forget(keys: Iterable<K>): void {
		this.changes++;
		for (const k of keys) this.entries.delete(k);
	}

	clear(): void {
		this.changes++;
		this.entries.clear();
	}

	/** Drops everything and caches nothing for `ms` (see DISCOVERY_MS). */
	pause(ms = DISCOVERY_MS): void {
		this.clear();
		this.pausedUntil = performance.now() + ms;
	}
}

/** A service's handlers for the node events that pause its caches (`caches()`: the service's, once it started). */
export function nodeCacheEvents(caches: () => ReadonlyArray<NodeCache<unknown, unknown>>) {
	const pause = () => {
		for (const c of caches()) c.pause();
	};
	return { "$node.connected": pause, "$transporter.connected": pause };
}
