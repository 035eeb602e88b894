// The one clock every service reads, so tests can move time.
let offsetMs = 0;

export const clock = {
	/** Milliseconds since the epoch. */
	nowMs(): number {
		return Date.now() + offsetMs;
	},
	/** UNIX seconds, the API's unit for timestamps. */
	now(): number {
		return Math.floor(clock.nowMs() / 1000);
	},
	/** Test hook: shift time forward (or back) by `ms`. */
	advance(ms: number): void {
		offsetMs += ms;
	},
	reset(): void {
		offsetMs = 0;
	},
};
