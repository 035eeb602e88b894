// The organization's outgoing webhook bots, read from the users service once and kept until a
// user changes (`users.changed`, which bot creation, edits and deactivation announce), so a sent
// message costs no call. A read that a change overtakes is not kept.
import type { ServiceBroker } from "moleculer";
import { call, type OutgoingBot } from "../../../shared/actions";

export function outgoingBotsCache(broker: () => ServiceBroker) {
	let kept: Promise<OutgoingBot[]> | undefined;
	let generation = 0;
	return {
		get(): Promise<OutgoingBot[]> {
			if (kept) return kept;
			const mine = generation;
			const read = call(broker(), "users.outgoingBots", {}).then((r) => r.bots);
			kept = read;
			// A failed read, or one a change overtook, is read again next time.
			const forget = (stale: boolean) => {
				if (stale && kept === read) kept = undefined;
			};
			read.then(
				() => forget(mine !== generation),
				() => forget(true),
			);
			return read;
		},
		changed(): void {
			generation++;
			kept = undefined;
		},
	};
}
