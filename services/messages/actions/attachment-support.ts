// For the uploads service: which of the messages that link a file the caller may read (Zulip's
// validate_attachment_request asks the same of UserMessage rows and channel histories).
import { requireUser } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import { readableAmong } from "../access";
import type { Ctx, ServiceDeps } from "./deps";

/** The most messages one question names (a file linked from more is asked about in one call all the same, up to this). */
const MAX_IDS = 100_000;

export function attachmentSupportActions({ db, resolvers }: ServiceDeps) {
	return {
		readableAmong: {
			visibility: "public",
			params: params({ message_ids: p.intList({ max: MAX_IDS }) }),
			async handler(ctx: Ctx<{ message_ids: number[] }>) {
				const user = requireUser(ctx);
				return { message_ids: await readableAmong(db, user.user_id, ctx.params.message_ids, resolvers(ctx).readable) };
			},
		},
	};
}
