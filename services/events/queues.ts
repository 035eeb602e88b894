// Event queues, as Zulip's: one per registered client, each a list of numbered events the client
// reads with GET /events (long-polling) and acknowledges by the last ID it has seen. They live in
// the memory of the events replica that created them; the queue ID names that replica.

/** What a client asked for at POST /register. */
export interface QueueOptions {
	user_id: number;
	/** Event types the client wants; null: all of them. */
	event_types: string[] | null;
	/** Zulip's narrow for message events, as [operator, operand] pairs or objects. */
	narrow: Array<{ operator: string; operand: unknown; negated?: boolean }>;
	apply_markdown: boolean;
	client_gravatar: boolean;
	all_public_streams: boolean;
	/** Client capabilities (register's client_capabilities) that change what a queue gets. */
	/** delete_message with message_ids (else one event per message, with message_id). */
	bulk_message_deletion?: boolean;
	/** typing events for channel topics (else direct conversations only). */
	stream_typing_notifications?: boolean;
	/** user_group update with deactivated (else op remove when a group is deactivated). */
	include_deactivated_groups?: boolean;
	/** Archived channels stay known: no stream delete on archiving, no create on unarchiving. */
	archived_channels?: boolean;
	/** presence events in the modern form (`presences` by user ID). */
	simplified_presence_events?: boolean;
	/** How long the queue lives unread, in seconds (GET /events' lifespan_secs); 0 or none: the idle timeout. */
	lifespan_secs?: number;
}

/** The longest lifespan a client may ask for (Zulip's MAX_QUEUE_TIMEOUT_SECS: a week). */
const MAX_LIFESPAN_SECS = 7 * 24 * 60 * 60;

export interface QueuedEvent {
	id: number;
	type: string;
	[field: string]: unknown;
}

export class Queue {
	readonly id: string;
	readonly options: QueueOptions;
	private events: QueuedEvent[] = [];
	private lastId = -1;
	/** The newest event the client acknowledged, and so dropped (Zulip's newest_pruned_id). */
	private newestPrunedId = -1;
	lastAccess = Date.now();
	/** The GET /events waiting for an event, if any. */
	private waiter: (() => void) | undefined;

	constructor(
		id: string,
		options: QueueOptions,
		/** The most unread events it holds (EVENT_QUEUE_MAX_EVENTS). */
		private readonly maxEvents: number,
		/** Called instead of adding an event to a full queue: the registry drops the queue. */
		private readonly overflow: (q: Queue) => void,
	) {
		this.id = id;
		this.options = options;
	}

	get lastEventId(): number {
		return this.lastId;
	}

	wants(type: string): boolean {
		return this.options.event_types === null || this.options.event_types.includes(type);
	}

	push(event: Omit<QueuedEvent, "id">): void {
		if (this.events.length >= this.maxEvents) {
			this.overflow(this);
			return;
		}
		this.lastId += 1;
		this.events.push({ ...event, id: this.lastId } as QueuedEvent);
		this.wake();
	}

	/**
	 * Drops the events the client has seen (IDs up to lastEventId), as Zulip's fetch_events:
	 * an ID older than one already dropped, or one the queue never had, is refused (after the
	 * drop, as in Zulip).
	 */
	acknowledge(lastEventId: number): "pruned" | "unknown" | undefined {
		this.lastAccess = Date.now();
		if (lastEventId < this.newestPrunedId) return "pruned";
		const keep = this.events.findIndex((e) => e.id > lastEventId);
		const dropped = keep < 0 ? this.events.length : keep;
		if (dropped) {
			this.newestPrunedId = this.events[dropped - 1].id;
			this.events = this.events.slice(dropped);
		}
		return this.newestPrunedId === lastEventId ? undefined : "unknown";
	}

	/** The events after lastEventId. */
	after(lastEventId: number): QueuedEvent[] {
		this.lastAccess = Date.now();
		return this.events.filter((e) => e.id > lastEventId);
	}

	/** Resolves when an event arrives, after `ms`, or when a newer request or the node's stop ends it. */
	wait(ms: number): Promise<void> {
		this.wake();
		return new Promise((resolve) => {
			const finish = () => {
				clearTimeout(timer);
				if (this.waiter === finish) this.waiter = undefined;
				this.lastAccess = Date.now();
				resolve();
			};
			const timer = setTimeout(finish, ms);
			this.waiter = finish;
		});
	}

	waiting(): boolean {
		return this.waiter !== undefined;
	}

	/** Ends a pending wait (an event came, another request took over, or the node stops). */
	wake(): void {
		const w = this.waiter;
		this.waiter = undefined;
		w?.();
	}
}

/** This replica's queues, with idle expiry. */
export class QueueRegistry {
	private queues = new Map<string, Queue>();
	private byUser = new Map<number, Set<Queue>>();
	/** Queues registered with all_public_streams. */
	private allPublic = new Set<Queue>();
	private counter = 0;

	constructor(
		private readonly prefix: string,
		private readonly idleMs: number,
		private readonly maxEvents: number,
		/** Told of each queue dropped for holding too many unread events. */
		private readonly onOverflow: (q: Queue) => void,
	) {}

	create(options: QueueOptions): Queue {
		this.counter += 1;
		const id = `${this.prefix}:${Date.now().toString(36)}${this.counter.toString(36)}`;
		const q = new Queue(id, options, this.maxEvents, (full) => {
			if (this.delete(full.id)) this.onOverflow(full);
		});
		this.queues.set(id, q);
		const mine = this.byUser.get(options.user_id) ?? new Set<Queue>();
		mine.add(q);
		this.byUser.set(options.user_id, mine);
		if (options.all_public_streams) this.allPublic.add(q);
		return q;
	}

	get(id: string): Queue | undefined {
		return this.queues.get(id);
	}

	delete(id: string): boolean {
		const q = this.queues.get(id);
		if (!q) return false;
		q.wake();
		this.queues.delete(id);
		this.allPublic.delete(q);
		const mine = this.byUser.get(q.options.user_id);
		mine?.delete(q);
		if (mine && !mine.size) this.byUser.delete(q.options.user_id);
		return true;
	}

	/** Queues of these users. */
	*of(userIds: Iterable<number>): Generator<Queue> {
		for (const u of userIds) yield* this.byUser.get(u) ?? [];
	}

	/** Queues registered with all_public_streams. */
	allPublicStreams(): IterableIterator<Queue> {
		return this.allPublic.values();
	}

	/** Deletes all of a user's queues (a deactivated user's, as Zulip does). */
	deleteUser(userId: number): void {
		for (const q of [...(this.byUser.get(userId) ?? [])]) this.delete(q.id);
	}

	/** Removes queues nobody has read for the idle timeout, or for the lifespan they asked for. */
	expire(now = Date.now()): void {
		for (const [id, q] of this.queues) {
			const lifespan = q.options.lifespan_secs;
			const idleMs = lifespan ? Math.min(lifespan, MAX_LIFESPAN_SECS) * 1000 : this.idleMs;
			if (!q.waiting() && now - q.lastAccess > idleMs) this.delete(id);
		}
	}

	close(): void {
		for (const q of this.queues.values()) q.wake();
		this.queues.clear();
		this.byUser.clear();
		this.allPublic.clear();
	}
}

/** The replica a queue ID names (everything before its last colon). */
export function ownerOf(queueId: string): string {
	const i = queueId.lastIndexOf(":");
	return i > 0 ? queueId.slice(0, i) : "";
}
