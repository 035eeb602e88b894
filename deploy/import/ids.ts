// Every ID the export names, mapped to this server's, in one place.
//
// Decision: the import writes into a database that holds no organization (import-target.ts), so
// the export's own IDs of users, channels, groups, messages, reactions, emoji, attachments and
// linkifiers are free and kept as they are. That keeps every ID inside Zulip's rendered content
// working without rewriting it: mentions (data-user-id, data-user-group-id), channel and message
// links (#narrow/channel/<id>-..., /near/<id>), quotes, /user_uploads/ paths. The exceptions
// are mapped here: Zulip's cross-realm bots become this server's system bots (matched by address),
// and recipients, which this server keys differently (channel:<id>, dm:<sorted user IDs>), get new
// IDs. Each service's ID counter is then raised past the largest ID imported (import-target.ts).
import type { Rec } from "../../shared/zulip-format/records";

export type ZulipRecipient = { kind: "channel"; channel_id: number } | { kind: "user"; user_id: number } | { kind: "huddle"; huddle_id: number };

class IdMap {
	private readonly map = new Map<number, number>();
	constructor(readonly what: string) {}

	set(from: number, to: number): void {
		this.map.set(from, to);
	}

	has(from: number): boolean {
		return this.map.has(from);
	}

	/** The mapped ID; an ID the export never defined fails on the record naming it. */
	get(from: number, rec: Rec, field: string): number {
		const to = this.map.get(from);
		if (to === undefined) rec.fail(`"${field}" names ${this.what} ${from}, which the export does not hold`);
		return to;
	}

	/** The mapped ID, or undefined for an ID the export never defined. */
	find(from: number): number | undefined {
		return this.map.get(from);
	}

	opt(from: number | null, rec: Rec, field: string): number | null {
		return from === null ? null : this.get(from, rec, field);
	}

	values(): IterableIterator<number> {
		return this.map.values();
	}

	max(): number {
		let m = 0;
		for (const v of this.map.values()) m = Math.max(m, v);
		return m;
	}
}

export class Ids {
	readonly users = new IdMap("user");
	readonly channels = new IdMap("channel");
	readonly groups = new IdMap("user group");
	readonly messages = new IdMap("message");
	readonly emoji = new IdMap("custom emoji");
	/** Zulip recipient ID → what it addresses. */
	readonly recipients = new Map<number, ZulipRecipient>();
	/** Huddle (group DM) ID → its members, from the subscriptions to its recipient. */
	readonly huddleMembers = new Map<number, number[]>();
	/** Zulip's realm ID (paths of files name it). */
	zulipRealmId = 0;

	/**
	 * Rendered HTML with the one path that names Zulip's realm ID made this organization's: custom
	 * emoji images (`/user_avatars/<realm>/emoji/...`), stored here under this organization's ID
	 * (emoji.ts). Uploaded files keep Zulip's path_id, so their links need nothing.
	 */
	html(s: string, realmId: number): string {
		if (this.zulipRealmId === realmId || !s.includes("/emoji/")) return s;
		return s.split(`/user_avatars/${this.zulipRealmId}/emoji/`).join(`/user_avatars/${realmId}/emoji/`);
	}

	recipient(id: number, rec: Rec, field: string): ZulipRecipient {
		const r = this.recipients.get(id);
		if (!r) rec.fail(`"${field}" names recipient ${id}, which the export does not hold`);
		return r;
	}
}
