// GET, POST /drafts, PATCH and DELETE /drafts/{draft_id}. Every change is announced as
// messages.draftsChanged (op add, update or remove) for the user's other clients. Drafts are
// refused while the user's enable_drafts_synchronization is off; turning it off deletes them
// (see the service's users.settingsChanged handler).
import { call, requireUser, type Identity } from "../../../shared/actions";
import { badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { checkDraft, draftMissing, draftRecipients, draftShape, draftsDisabled, draftView, type DraftInput, type DraftTargets } from "../draft-rules";
import type { Ctx, ServiceDeps } from "./deps";

async function draftsEnabled(ctx: Ctx<any>): Promise<boolean> {
	const { values } = await call(ctx, "users.mySettings", { names: ["enable_drafts_synchronization"] });
	return values.enable_drafts_synchronization !== false;
}

export function draftActions({ db, resolvers }: ServiceDeps) {
	async function requireDrafts(ctx: Ctx<any>): Promise<Identity> {
		const actor = requireUser(ctx);
		if (!(await draftsEnabled(ctx))) throw draftsDisabled();
		return actor;
	}

	/** Checks a request's drafts whole: one lookup of their channels and one of their users. */
	async function checkDrafts(ctx: Ctx<any>, drafts: DraftInput[]): Promise<DraftInput[]> {
		const { channelIds, userIds } = draftRecipients(drafts);
		const [readable, usersValid] = await Promise.all([
			channelIds.length ? resolvers(ctx).readable(channelIds) : [],
			userIds.length
				? call(ctx, "users.resolvePrincipals", { principals: userIds }).then(
						() => true,
						() => false,
					)
				: true,
		]);
		const targets: DraftTargets = { channels: new Set(readable.map((c) => c.channel_id)), usersValid };
		return drafts.map((d) => checkDraft(d, targets, requireUser(ctx).user_id));
	}

	const announce = (ctx: Ctx<any>, userId: number, change: Record<string, unknown>) => ctx.broadcast("messages.draftsChanged", { user_id: userId, ...change });

	return {
		listDrafts: {
			params: params({}),
			async handler(ctx: Ctx) {
				const actor = await requireDrafts(ctx);
				const drafts = await db.Draft.find({ user_id: actor.user_id }).sort({ timestamp: -1, _id: -1 }).lean();
				return { count: drafts.length, drafts: drafts.map(draftView) };
			},
		},

		createDrafts: {
			params: params({ drafts: p.json({ optional: true }) }),
			async handler(ctx: Ctx<{ drafts?: unknown }>) {
				const actor = await requireDrafts(ctx);
				const raw = ctx.params.drafts ?? [];
				if (!Array.isArray(raw)) throw badRequest("drafts is not a list");
				// Every draft is checked before any is stored.
				const checked = await checkDrafts(ctx, raw.map((d, i) => draftShape(d, `drafts[${i}]`)));
				if (!checked.length) return { ids: [] };
				const first = await db.nextId("draft", checked.length);
				const docs = checked.map((d, i) => ({ _id: first + i, user_id: actor.user_id, ...d }));
				await db.Draft.insertMany(docs);
				await announce(ctx, actor.user_id, { op: "add", drafts: docs.map(draftView) });
				return { ids: docs.map((d) => d._id) };
			},
		},

		editDraft: {
			params: params({ draft_id: p.int(), draft: p.json() }),
			async handler(ctx: Ctx<{ draft_id: number; draft: unknown }>) {
				const actor = await requireDrafts(ctx);
				const [draft] = await checkDrafts(ctx, [draftShape(ctx.params.draft, "draft")]);
				const updated = await db.Draft.findOneAndUpdate({ _id: ctx.params.draft_id, user_id: actor.user_id }, { $set: draft }, { returnDocument: "after" }).lean();
				if (!updated) throw draftMissing();
				await announce(ctx, actor.user_id, { op: "update", draft: draftView(updated) });
				return {};
			},
		},

		deleteDraft: {
			params: params({ draft_id: p.int() }),
			async handler(ctx: Ctx<{ draft_id: number }>) {
				const actor = await requireDrafts(ctx);
				const removed = await db.Draft.findOneAndDelete({ _id: ctx.params.draft_id, user_id: actor.user_id }).lean();
				if (!removed) throw draftMissing();
				await announce(ctx, actor.user_id, { op: "remove", draft_id: removed._id });
				return {};
			},
		},
	};
}

/** The drafts part of POST /register: none while synchronization is off. */
export async function draftsState(db: ServiceDeps["db"], ctx: Ctx<any>, userId: number) {
	if (!(await draftsEnabled(ctx))) return [];
	return (await db.Draft.find({ user_id: userId }).sort({ timestamp: -1, _id: -1 }).lean()).map(draftView);
}
