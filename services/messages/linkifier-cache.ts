// The organization's linkifiers for rendering: asked of the catalog service once, then kept current
// by catalog.linkifiersChanged (which carries the whole list), so no message costs a bus call.
import type { Context } from "moleculer";
import { call, type Meta } from "../../shared/actions";
import { currentLinkifiers, setLinkifiers, type CompiledLinkifier } from "../../shared/markdown/linkifiers";
import type { Linkifier } from "../../shared/org-events";

let heard = 0;

/** From the broadcast: always the newest. */
export function linkifiersChanged(list: Linkifier[]): void {
	heard++;
	setLinkifiers(list);
}

export async function loadedLinkifiers(ctx: Context<unknown, Meta>): Promise<CompiledLinkifier[]> {
	const known = currentLinkifiers();
	if (known) return known;
	const before = heard;
	const { linkifiers } = await call(ctx, "catalog.linkifiers", {});
	// A broadcast heard meanwhile is newer than this answer.
	if (heard === before) setLinkifiers(linkifiers);
	return currentLinkifiers() ?? [];
}
