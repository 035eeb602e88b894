// What other services ask of the users service: users named by ID or email (principals, narrow
// operands), the users a message mentions, Notification Bot, and the group graph their
// permission checks use.
import type { Identity, OutgoingBot } from "../../../shared/actions";
import type { GroupGraphData } from "../../../shared/group-settings";
import { p, params } from "../../../shared/params";
import { escapeRegExp } from "../../../shared/regexp";
import { notificationBot } from "../accounts/system-bots";
import { BotType } from "../bots/bot-rules";
import { graphData } from "../groups/user-group-rules";
import { mentionedUsers, usersByNarrowOperand, usersByPrincipal } from "../user-lookup";
import type { Ctx, ServiceDeps } from "../deps";

type Person = { user_id: number; full_name: string };

export function lookupActions({ db, identity }: ServiceDeps) {
	return {
		/**
		 * Principals (user IDs or emails) as the users they name; unknown or deactivated users
		 * are an error, as the subscription endpoints require.
		 */
		resolvePrincipals: {
			visibility: "public",
			params: params({ principals: p.list({ type: "multi", rules: [{ type: "number", integer: true }, { type: "string" }] }) }),
			async handler(ctx: Ctx<{ principals: Array<number | string> }>) {
				return { users: await usersByPrincipal(db, ctx.params.principals) };
			},
		},

		/** For the messages service: the users narrow operands name, system bots and deactivated users included. */
		narrowUsers: {
			visibility: "public",
			params: params({ refs: p.list({ type: "multi", rules: [{ type: "number", integer: true }, { type: "string" }] }) }),
			async handler(ctx: Ctx<{ refs: Array<number | string> }>) {
				return { user_ids: await usersByNarrowOperand(db, ctx.params.refs) };
			},
		},

		/**
		 * For the integrations service: active users (ID and full name) named by delivery email
		 * (Zulip's get_user_by_delivery_email), and of those a tool's username guesses (Jira's
		 * guess_zulip_user_from_jira: the full name, without regard to case, or the start of the
		 * email; the oldest account first). What names no one is left out.
		 */
		integrationPeople: {
			visibility: "public",
			params: params({ emails: p.stringList({ max: 100 }), guesses: p.stringList({ max: 100 }) }),
			async handler(ctx: Ctx<{ emails: string[]; guesses: string[] }>) {
				const realm_id = db.realm._id;
				const byEmail: Record<string, Person> = {};
				const keys = ctx.params.emails.map((e) => e.toLowerCase());
				const found = keys.length ? await db.User.find({ realm_id, email_key: { $in: keys }, is_active: true }, { email_key: 1, full_name: 1 }).lean() : [];
				for (const e of ctx.params.emails) {
					const u = found.find((f) => f.email_key === e.toLowerCase());
					if (u) byEmail[e] = { user_id: u._id, full_name: u.full_name };
				}
				const byGuess: Record<string, Person> = {};
				for (const g of ctx.params.guesses) {
					const literal = escapeRegExp(g);
					const [u] = await db.User.find(
						{ realm_id, is_active: true, $or: [{ full_name: { $regex: new RegExp(`^${literal}$`, "i") } }, { email_key: { $regex: new RegExp(`^${escapeRegExp(g.toLowerCase())}`) } }] },
						{ full_name: 1 },
					)
						.sort({ _id: 1 })
						.limit(1)
						.lean();
					if (u) byGuess[g] = { user_id: u._id, full_name: u.full_name };
				}
				return { by_email: byEmail, by_guess: byGuess };
			},
		},

		/** For the messages service: Notification Bot, who announces moved and resolved topics. */
		notificationBot: {
			visibility: "public",
			cache: { ttl: 3600 },
			async handler(): Promise<Identity> {
				return identity(await notificationBot(db.User));
			},
		},

		/**
		 * For the integrations service: the organization's active outgoing webhook bots with their
		 * service (Zulip's Service row). The caller keeps the answer until `users.changed`; a cache
		 * here could answer it the old list before this service's own cache is cleaned.
		 */
		outgoingBots: {
			visibility: "public",
			async handler(): Promise<{ bots: OutgoingBot[] }> {
				const found = await db.User.find({ realm_id: db.realm._id, is_bot: true, bot_type: BotType.OUTGOING_WEBHOOK, is_active: true }).lean();
				const bots = found.flatMap((b) =>
					b.bot_service ? [{ ...identity(b), bot_owner_id: b.bot_owner_id ?? null, base_url: b.bot_service.base_url, interface: b.bot_service.interface, token: b.bot_service.token }] : [],
				);
				return { bots };
			},
		},

		/**
		 * For message rendering: the users a message mentions, by exact full name or by ID.
		 * A name several active users share matches none (the sender must add |ID).
		 */
		mentionTargets: {
			visibility: "public",
			params: params({ names: p.stringList(), ids: p.intList() }),
			async handler(ctx: Ctx<{ names: string[]; ids: number[] }>) {
				return { users: await mentionedUsers(db, ctx.params.names, ctx.params.ids) };
			},
		},

		/** Other services' permission checks evaluate group settings against this snapshot. */
		groupGraph: {
			visibility: "public",
			params: params({}),
			async handler(): Promise<GroupGraphData> {
				return graphData(db);
			},
		},
	};
}
