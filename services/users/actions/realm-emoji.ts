// GET /realm/emoji: the organization's custom emoji (../custom-emoji.ts).
import { requireUser } from "../../../shared/actions";
import { params } from "../../../shared/params";
import { customEmoji } from "../custom-emoji";
import type { Ctx } from "./deps";

export function realmEmojiActions() {
	return {
		realmEmoji: {
			params: params({}),
			handler(ctx: Ctx<unknown>) {
				requireUser(ctx);
				return { emoji: customEmoji() };
			},
		},
	};
}
