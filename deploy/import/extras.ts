// The small per-organization and per-user tables: linkifiers, alert words, muted users.
import type { LinkifierDoc } from "../../services/users/models/linkifier";
import { mutedUserKey, type MutedUserDoc } from "../../services/users/models/muted-user";
import type { AlertWordsDoc } from "../../services/messages/models/alert-words";
import { insertAll, seconds, table, type ImportContext } from "./context";

export async function importExtras(ctx: ImportContext): Promise<void> {
	const { ids, target } = ctx;
	const linkifiers: LinkifierDoc[] = table(ctx, "zerver_realmfilter").map((r) => ({
		_id: r.int("id"),
		realm_id: ctx.realmId,
		pattern: r.str("pattern"),
		url_template: r.str("url_template"),
		order: r.optInt("order") ?? 0,
	}));
	await insertAll(target.m.Linkifier, linkifiers);
	await target.raiseCounter("users", "realm_filter", Math.max(0, ...linkifiers.map((l) => l._id)));

	const words = new Map<number, string[]>();
	for (const r of table(ctx, "zerver_alertword")) {
		const user = ids.users.get(r.int("user_profile"), r, "user_profile");
		(words.get(user) ?? words.set(user, []).get(user)!).push(r.str("word"));
	}
	const alertWords: AlertWordsDoc[] = [...words].map(([user, list]) => ({ _id: user, words: [...new Set(list)] }));
	await insertAll(target.m.AlertWords, alertWords);

	const muted = new Map<string, MutedUserDoc>();
	for (const r of table(ctx, "zerver_muteduser")) {
		const user = ids.users.get(r.int("user_profile"), r, "user_profile");
		const mutedUser = ids.users.get(r.int("muted_user"), r, "muted_user");
		muted.set(mutedUserKey(user, mutedUser), { _id: mutedUserKey(user, mutedUser), user_id: user, muted_user_id: mutedUser, date_muted: seconds(r.num("date_muted")) });
	}
	await insertAll(target.m.MutedUser, [...muted.values()]);
}
