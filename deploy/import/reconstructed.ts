// The tables of realm.json this server has no place for, but whose rows may hold nothing it lacks:
// the ones Zulip's import requires, which this server's own export (export-zulip) builds from what
// it has (shared/zulip-format/zulip-import-tables.ts). Only what is lost is reported as not
// kept, so re-importing this server's export lists none of them, while a Zulip export's real audit
// log, sign-in methods and user defaults still are.
import { USER_SETTINGS } from "../../services/users/settings/user-settings";
import { OWN_AUTH_METHODS, userDefaults } from "../../shared/zulip-format/zulip-import-tables";
import { table, type ImportContext } from "./context";

/** Reports what `name`'s rows hold that is lost here; false when the table has no rule of its own. */
export function reportReconstructed(ctx: ImportContext, name: string, why: string): boolean {
	const rule = RULES[name];
	if (!rule) return false;
	const rows = table(ctx, name).map((r) => r.raw);
	rule(rows, (count, detail) => ctx.notKept.add(name, detail ? `${why}: ${detail}` : why, count));
	return true;
}

type Rule = (rows: Array<Record<string, unknown>>, lost: (count: number, detail?: string) => void) => void;

const RULES: Record<string, Rule> = {
	// Backfilled entries are reconstructions (Zulip's, or this server's export's), not history.
	zerver_realmauditlog: (rows, lost) => lost(rows.filter((r) => r.backfilled !== true).length),
	// The sign-in methods this server has apply here anyway.
	zerver_realmauthenticationmethod: (rows, lost) => {
		const others = rows.map((r) => String(r.name)).filter((m) => !OWN_AUTH_METHODS.includes(m));
		lost(others.length, `this server has none of ${others.join(", ")}`);
	},
	// A counter of presence updates: nothing is lost while it has not moved.
	zerver_presencesequence: (rows, lost) => lost(rows.filter((r) => r.last_update_id !== 0).length),
	// This server's defaults are fixed: only the ones that differ from them are lost.
	zerver_realmuserdefault: (rows, lost) => {
		const ours = userDefaults(Object.fromEntries(Object.entries(USER_SETTINGS).map(([k, def]) => [k, def.default])));
		const differ = rows.flatMap((r) => Object.keys(ours).filter((k) => Object.hasOwn(r, k) && r[k] !== ours[k]));
		lost(differ.length, `these differ from this server's: ${differ.join(", ")}`);
	},
};
