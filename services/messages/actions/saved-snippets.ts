// GET, POST /saved_snippets, PATCH and DELETE /saved_snippets/{saved_snippet_id}: a user's
// reusable message texts. Changes are announced as messages.savedSnippetsChanged.
import { requireUser } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import { apiError, badRequest } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { LIMITS } from "../../../shared/version";
import type { MessagesDb } from "../db";
import type { SavedSnippetDoc } from "../models/saved-snippet";
import type { Ctx, ServiceDeps } from "./deps";

/** Zulip's limit on a snippet's title. */
export const MAX_SNIPPET_TITLE_LENGTH = 200;

const snippetMissing = () => apiError(404, "BAD_REQUEST", "Saved snippet does not exist.");
const snippetView = (s: SavedSnippetDoc) => ({ id: s._id, title: s.title, content: s.content, date_created: s.date_created });

/** Title and content must say something: surrounding whitespace does not count. */
function checkText(title: string | undefined, content: string | undefined) {
	if (title !== undefined && !title.trim()) throw badRequest("Title cannot be empty.");
	if (content !== undefined && !content.trim()) throw badRequest("Content cannot be empty.");
}

const textParams = (optional: boolean) => ({
	title: p.string({ optional, max: MAX_SNIPPET_TITLE_LENGTH }),
	content: p.string({ optional, max: LIMITS.max_message_length }),
});

export function savedSnippetActions({ db }: ServiceDeps) {
	const announce = (ctx: Ctx<any>, userId: number, change: Record<string, unknown>) => ctx.broadcast("messages.savedSnippetsChanged", { user_id: userId, ...change });

	return {
		listSavedSnippets: {
			params: params({}),
			async handler(ctx: Ctx) {
				return { saved_snippets: await savedSnippetsState(db, requireUser(ctx).user_id) };
			},
		},

		createSavedSnippet: {
			params: params(textParams(false)),
			async handler(ctx: Ctx<{ title: string; content: string }>) {
				const actor = requireUser(ctx);
				checkText(ctx.params.title, ctx.params.content);
				const doc = await db.SavedSnippet.create({ _id: await db.nextId("saved_snippet"), user_id: actor.user_id, ...ctx.params, date_created: clock.now() });
				await announce(ctx, actor.user_id, { op: "add", saved_snippet: snippetView(doc) });
				return { saved_snippet_id: doc._id };
			},
		},

		editSavedSnippet: {
			params: params({ saved_snippet_id: p.int(), ...textParams(true) }),
			async handler(ctx: Ctx<{ saved_snippet_id: number; title?: string; content?: string }>) {
				const actor = requireUser(ctx);
				const { saved_snippet_id, title, content } = ctx.params;
				if (title === undefined && content === undefined) throw badRequest("At least one of the following arguments must be present: title, content");
				checkText(title, content);
				const set = { ...(title !== undefined && { title }), ...(content !== undefined && { content }) };
				const updated = await db.SavedSnippet.findOneAndUpdate({ _id: saved_snippet_id, user_id: actor.user_id }, { $set: set }, { returnDocument: "after" }).lean();
				if (!updated) throw snippetMissing();
				await announce(ctx, actor.user_id, { op: "update", saved_snippet: snippetView(updated) });
				return {};
			},
		},

		deleteSavedSnippet: {
			params: params({ saved_snippet_id: p.int() }),
			async handler(ctx: Ctx<{ saved_snippet_id: number }>) {
				const actor = requireUser(ctx);
				const removed = await db.SavedSnippet.findOneAndDelete({ _id: ctx.params.saved_snippet_id, user_id: actor.user_id }).lean();
				if (!removed) throw snippetMissing();
				await announce(ctx, actor.user_id, { op: "remove", saved_snippet_id: removed._id });
				return {};
			},
		},
	};
}

/** A user's snippets, oldest first (also the saved_snippets part of POST /register). */
export async function savedSnippetsState(db: MessagesDb, userId: number) {
	return (await db.SavedSnippet.find({ user_id: userId }).sort({ _id: 1 }).lean()).map(snippetView);
}
