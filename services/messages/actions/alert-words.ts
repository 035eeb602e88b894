// GET, POST and DELETE /users/me/alert_words. Each change is announced as
// messages.alertWordsChanged (the `alert_words` event); the rules live in ../alert-words.ts.
import { requireUser } from "../../../shared/actions";
import type { AlertWordsChanged } from "../../../shared/org-events";
import { p, params } from "../../../shared/params";
import { alertWordsOf, checkAlertWords, setAlertWords } from "../alert-words";
import type { Ctx, ServiceDeps } from "./deps";

export function alertWordActions({ db }: ServiceDeps) {
	/** The user's alert words now, answered and broadcast (the `alert_words` event). */
	async function announceAlertWords(ctx: Ctx<any>, userId: number, words: string[]) {
		await ctx.broadcast("messages.alertWordsChanged", { user_id: userId, alert_words: words } satisfies AlertWordsChanged);
		return { alert_words: words };
	}

	return {
		alertWords: {
			params: params({}),
			async handler(ctx: Ctx) {
				return { alert_words: await alertWordsOf(db, requireUser(ctx).user_id) };
			},
		},

		addAlertWords: {
			params: params({ alert_words: p.stringList() }),
			async handler(ctx: Ctx<{ alert_words: string[] }>) {
				const actor = requireUser(ctx);
				const current = await alertWordsOf(db, actor.user_id);
				const added = checkAlertWords(ctx.params.alert_words).filter((w) => !current.some((c) => c.toLowerCase() === w.toLowerCase()));
				return announceAlertWords(ctx, actor.user_id, await setAlertWords(db, actor.user_id, [...current, ...new Set(added)]));
			},
		},

		removeAlertWords: {
			params: params({ alert_words: p.stringList() }),
			async handler(ctx: Ctx<{ alert_words: string[] }>) {
				const actor = requireUser(ctx);
				const drop = new Set(checkAlertWords(ctx.params.alert_words).map((w) => w.toLowerCase()));
				const current = await alertWordsOf(db, actor.user_id);
				return announceAlertWords(ctx, actor.user_id, await setAlertWords(db, actor.user_id, current.filter((w) => !drop.has(w.toLowerCase()))));
			},
		},
	};
}
