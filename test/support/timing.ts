// Time bounds as ratios: how long a request takes is compared with an ordinary request timed beside
// it in the same run, so a slower or busier machine moves both and the bound holds anywhere.
import { performance } from "node:perf_hooks";

const timed = async (run: () => Promise<unknown>) => {
	const t0 = performance.now();
	await run();
	return performance.now() - t0;
};

/**
 * How many times longer `work` takes than `ordinary`, timed just before and just after it (the
 * slower of the two counts, so a moment of load on the machine is in the baseline too). Another
 * process can delay one attempt, never every one: the three are repeated, up to `attempts` times,
 * until an attempt is within `ratio`; the best attempt's ratio is answered.
 */
export async function timesSlower(ordinary: () => Promise<unknown>, work: () => Promise<unknown>, ratio: number, attempts = 3): Promise<number> {
	let best = Infinity;
	for (let i = 0; i < attempts && best >= ratio; i++) {
		const before = await timed(ordinary);
		const took = await timed(work);
		best = Math.min(best, took / Math.max(before, await timed(ordinary)));
	}
	return best;
}
