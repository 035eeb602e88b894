// Navigation views, as Zulip's: built-in views (fixed fragments) may be pinned or hidden but never
// named; any other fragment is a custom view and needs a name unique among the user's views.
import { isDuplicateKey } from "../../../shared/db";
import { badRequest, notFound } from "../../../shared/errors";
import type { UsersDb } from "../db";
import type { NavigationViewDoc } from "./navigation-view-model";

/**
 * Zulip stores both as unbounded text; these bounds are the server's own (a fragment is a URL
 * hash, a name a sidebar label), refused with Zulip's "too long" wording.
 */
export const MAX_FRAGMENT_LENGTH = 1000;
export const MAX_VIEW_NAME_LENGTH = 200;

/** Zulip's BUILT_IN_VIEW_FRAGMENTS. */
export const BUILT_IN_VIEW_FRAGMENTS = ["inbox", "recent", "feed", "drafts", "narrow/has/reaction/sender/me", "narrow/is/mentioned", "narrow/is/starred"];

export type NavigationView = Pick<NavigationViewDoc, "fragment" | "is_pinned" | "name">;

const exists = () => badRequest("Navigation view already exists.");
const missing = () => notFound("Navigation view does not exist.");
const builtInNamed = () => badRequest("Built-in views cannot have a custom name.");
/** A key no custom name can equal (no parameter may hold NUL), so built-in views never collide. */
const nameKey = (fragment: string, name: string | null) => name ?? `\u0000${fragment}`;

/** Zulip strips these parameters and refuses them empty. */
export function stripped(name: string, value: string): string {
	const v = value.trim();
	if (!v) throw badRequest(`${name} cannot be blank`);
	return v;
}

export const viewOf = (v: NavigationViewDoc): NavigationView => ({ fragment: v.fragment, is_pinned: v.is_pinned, name: v.name });

export async function listViews(db: UsersDb, userId: number): Promise<NavigationView[]> {
	return (await db.NavigationView.find({ user_id: userId }).sort({ fragment: 1 }).lean()).map(viewOf);
}

export async function addView(db: UsersDb, userId: number, fragment: string, is_pinned: boolean, name: string | null): Promise<NavigationView> {
	if (BUILT_IN_VIEW_FRAGMENTS.includes(fragment)) {
		if (name !== null) throw builtInNamed();
	} else if (!name) throw badRequest("Custom views must have a valid name.");
	const doc = { user_id: userId, fragment, is_pinned, name, name_key: nameKey(fragment, name) };
	try {
		await db.NavigationView.create(doc);
	} catch (err) {
		// The unique indexes decide: the same fragment, or a name already taken.
		if (isDuplicateKey(err)) throw exists();
		throw err;
	}
	return viewOf(doc);
}

/** The changed fields (Zulip's `data` of the update event). */
export async function updateView(db: UsersDb, userId: number, fragment: string, changes: { is_pinned?: boolean; name?: string }) {
	if (BUILT_IN_VIEW_FRAGMENTS.includes(fragment) && changes.name !== undefined) throw builtInNamed();
	const data: Record<string, unknown> = {};
	if (changes.name !== undefined) Object.assign(data, { name: changes.name });
	if (changes.is_pinned !== undefined) data.is_pinned = changes.is_pinned;
	// As Zulip: a name in use (even by this view) is refused before the view is looked up.
	if (changes.name !== undefined && (await db.NavigationView.exists({ user_id: userId, name_key: changes.name }))) throw exists();
	const set = changes.name !== undefined ? { ...data, name_key: nameKey(fragment, changes.name) } : data;
	try {
		// A concurrent rename to the same name is refused by the unique index.
		const filter = { user_id: userId, fragment };
		const found = Object.keys(set).length ? await db.NavigationView.findOneAndUpdate(filter, { $set: set }).lean() : await db.NavigationView.exists(filter);
		if (!found) throw missing();
	} catch (err) {
		if (isDuplicateKey(err)) throw exists();
		throw err;
	}
	return data;
}

export async function removeView(db: UsersDb, userId: number, fragment: string) {
	const res = await db.NavigationView.deleteOne({ user_id: userId, fragment });
	if (!res.deletedCount) throw missing();
}
