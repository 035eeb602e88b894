// Per-user (per-address for unauthenticated requests) fixed-window request budget.
//
// Kept in each gateway replica's memory: with N replicas behind a load balancer a client gets at
// most N times the budget. That trade keeps the check off the bus on every request.
export interface RateState {
	limit: number;
	remaining: number;
	/** UNIX seconds when the window resets. */
	reset: number;
	/** Seconds to wait, when the budget is spent. */
	retryAfter?: number;
}

export class RateLimiter {
	private windows = new Map<string, { start: number; count: number }>();
	private lastSweep = 0;

	constructor(
		private limit: number,
		private windowMs: number,
		private now: () => number,
	) {}

	get enabled(): boolean {
		return this.limit > 0;
	}

	hit(key: string): RateState {
		const now = this.now();
		this.sweep(now);
		let w = this.windows.get(key);
		if (!w || now - w.start >= this.windowMs) {
			w = { start: now, count: 0 };
			this.windows.set(key, w);
		}
		w.count++;
		const resetMs = w.start + this.windowMs;
		const state: RateState = {
			limit: this.limit,
			remaining: Math.max(0, this.limit - w.count),
			reset: Math.ceil(resetMs / 1000),
		};
		if (w.count > this.limit) state.retryAfter = Math.max(0.001, (resetMs - now) / 1000);
		return state;
	}

	/** Seconds until `key` may go on, when its budget is spent; undefined when it may now. Spends nothing. */
	waitFor(key: string): number | undefined {
		const now = this.now();
		const w = this.windows.get(key);
		if (!w || now - w.start >= this.windowMs || w.count < this.limit) return undefined;
		return Math.max(0.001, (w.start + this.windowMs - now) / 1000);
	}

	/** Drops finished windows once per window length, so memory stays bounded by active clients. */
	private sweep(now: number): void {
		if (now - this.lastSweep < this.windowMs) return;
		this.lastSweep = now;
		for (const [key, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(key);
	}
}
