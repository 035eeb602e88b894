// Work set off and not awaited (a broadcast's listener, the first attempt at an email or a bouncer
// request): kept in a set until it settles, so a sweep (tests see settled states) or the service's
// stop can wait for it. The work handles its own failure.
export function keepUntilSettled(set: Set<Promise<unknown>>, work: Promise<unknown>): void {
	set.add(work);
	void work.finally(() => set.delete(work));
}
