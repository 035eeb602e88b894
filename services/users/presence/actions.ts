// Presence, as Zulip's zerver/views/presence.py: POST /users/me/presence (a client's report every
// minute, answered with the organization's presence), GET /users/{user_id_or_email}/presence and
// GET /realm/presence. The rules live in presence-rules.ts and presence-store.ts.
import { requireUser } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import { badRequest } from "../../../shared/errors";
import type { PresenceChanged } from "../../../shared/org-events";
import { p, params } from "../../../shared/params";
import { NAME_MAX } from "../../../shared/param-bounds";
import type { UserDoc } from "../models/user";
import { modernPresence, singleUserLegacyPresence } from "./presence-rules";
import { realmPresences, recordPresence } from "./presence-store";
import type { Ctx, ServiceDeps } from "../deps";

interface UpdateParams {
	status: string;
	ping_only?: boolean;
	new_user_input?: boolean;
	slim_presence?: boolean;
	last_update_id?: number;
	history_limit_days?: number;
}

/** Python's int() of a path segment (surrounding spaces, a sign, underscores between digits), else undefined. */
function pythonInt(s: string): number | undefined {
	const m = /^\s*([+-]?\d+(?:_\d+)*)\s*$/.exec(s);
	return m ? Number(m[1].replaceAll("_", "")) : undefined;
}

export function presenceActions({ db, findUser, userByEmail, settingsNamed, noSuchUser }: ServiceDeps) {
	const announce = (ctx: Ctx<unknown>, change: PresenceChanged | undefined) => (change ? ctx.broadcast("users.presenceChanged", change) : undefined);

	return {
		updatePresence: {
			params: params({
				status: p.string({ max: NAME_MAX }),
				ping_only: p.bool({ optional: true }),
				new_user_input: p.bool({ optional: true }),
				slim_presence: p.bool({ optional: true }),
				last_update_id: p.int({ optional: true }),
				history_limit_days: p.int({ optional: true }),
			}),
			async handler(ctx: Ctx<UpdateParams>) {
				const actor = requireUser(ctx);
				if (actor.is_bot) throw badRequest("This endpoint does not accept bot requests.");
				const q = ctx.params;
				if (q.status !== "active" && q.status !== "idle") throw badRequest(`Invalid status: ${q.status}`);
				const user = await findUser(actor.user_id);
				// Invisible mode: the reports of a user not sharing presence are not recorded.
				if (settingsNamed(user, ["presence_enabled"]).presence_enabled) await announce(ctx, await recordPresence(db, user, q.status, new Date(clock.nowMs())));
				if (q.ping_only) return {};
				// Sending last_update_id means the client speaks the modern protocol.
				const slim = q.last_update_id !== undefined || (q.slim_presence ?? false);
				const nowMs = clock.nowMs();
				const { presences, last_update_id } = await realmPresences(db, { slim, lastUpdateId: q.last_update_id, historyLimitDays: q.history_limit_days, nowMs });
				return { presences, server_timestamp: nowMs / 1000, presence_last_update_id: last_update_id };
			},
		},

		userPresence: {
			params: params({ user_id_or_email: p.string(), slim_presence: p.bool({ optional: true }) }),
			async handler(ctx: Ctx<{ user_id_or_email: string; slim_presence?: boolean }>) {
				const self = requireUser(ctx);
				const named = ctx.params.user_id_or_email;
				const id = pythonInt(named);
				let target: UserDoc;
				if (id === undefined) target = await userByEmail(self, named);
				else if (Number.isSafeInteger(id)) target = await findUser(id);
				else throw noSuchUser();
				if (!target.is_active) throw noSuchUser();
				if (target.is_bot) throw badRequest("Presence is not supported for bot users.");
				const row = await db.Presence.findById(target._id).lean();
				if (!row) throw badRequest(`No presence data for ${named}`);
				return { presence: ctx.params.slim_presence ? modernPresence(row, target.date_joined) : singleUserLegacyPresence(row, target.date_joined, clock.nowMs()) };
			},
		},

		realmPresence: {
			params: params({}),
			async handler(ctx: Ctx<unknown>) {
				requireUser(ctx);
				const nowMs = clock.nowMs();
				const { presences } = await realmPresences(db, { slim: false, nowMs });
				return { presences, server_timestamp: nowMs / 1000 };
			},
		},
	};
}
