// For the notifications service's weekly digest: the period's topics in the channels its readers
// follow, and the first messages of the topics it shows (digest-topics.ts). One call each per pass.
import { p, params } from "../../../shared/params";
import type { DigestSample, DigestTopicRef, DigestTopicStats } from "../../../shared/digest";
import { digestSamples, digestTopics } from "../digest-topics";
import type { Ctx, ServiceDeps } from "./deps";

/** The most topics one call samples (a pass shows at most four per reader). */
const MAX_SAMPLED_TOPICS = 20_000;

export function digestMessageActions({ db }: ServiceDeps) {
	return {
		digestTopics: {
			visibility: "public",
			params: params({ channel_ids: p.intList(), since: p.int({ min: 0 }) }),
			async handler(ctx: Ctx<{ channel_ids: number[]; since: number }>): Promise<{ topics: DigestTopicStats[] }> {
				return { topics: await digestTopics(db, ctx.params.channel_ids, ctx.params.since) };
			},
		},

		digestSamples: {
			visibility: "public",
			params: params({ topics: p.list(p.object({ channel_id: p.int(), topic_key: p.string({ empty: true }), first_id: p.int() }), { max: MAX_SAMPLED_TOPICS }) }),
			async handler(ctx: Ctx<{ topics: DigestTopicRef[] }>): Promise<{ samples: DigestSample[] }> {
				return { samples: await digestSamples(db, ctx.params.topics) };
			},
		},
	};
}
