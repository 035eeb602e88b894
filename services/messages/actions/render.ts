// POST /messages/render: content rendered as a send renders it (mentions, channel links,
// linkifiers), with nothing stored and no one told. As Zulip's render_message_backend, empty
// content is no error (it renders empty). Content longer than a send may be is refused with the
// send's error: Zulip renders it (failing only past a hundred times that length), but a preview
// of what cannot be sent is of no use, and the bound keeps each rendering within milliseconds.
import { requireUser } from "../../../shared/actions";
import { p, params } from "../../../shared/params";
import { checkContentLength } from "../send-rules";
import type { Ctx, ServiceDeps } from "./deps";

export function renderActions({ flagsForContent }: ServiceDeps) {
	return {
		render: {
			params: params({ content: p.string() }),
			async handler(ctx: Ctx<{ content: string }>) {
				const actor = requireUser(ctx);
				checkContentLength(ctx.params.content.replace(/\s+$/, ""));
				// No recipients: no mention or alert-word flags are worked out.
				const { rendered } = await flagsForContent(ctx, actor, ctx.params.content, [], null, "");
				return { rendered: rendered.html };
			},
		},
	};
}
