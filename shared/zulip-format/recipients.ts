// Recipient IDs of an export: Zulip gives every user (personal), every channel and every group
// DM (its DirectMessageGroup, zerver_huddle) a Recipient row that messages and subscriptions point
// to. This server keeps no such rows for users and channels, so an export numbers them itself:
// users first, in ID order, then channels, then group DMs as their messages are met. Zulip's
// import maps every ID anew, so the numbers only need to agree within one export.
//
// The server's system bots (Zulip's cross-realm bots) have a personal recipient too, which messages
// sent to them name, but no row in zerver_recipient: Zulip's export leaves them out and names them
// only in zerver_userprofile_crossrealm (`recipient_id`), and its import maps that ID onto the
// importing server's own bot's recipient. A row for one would be inserted as a second (PERSONAL,
// bot) recipient there: the unique (type, type_id) index refuses it. Their IDs come first (1, 2,
// ...), as in Zulip's own exports, so they never collide with a row's.
import { createHash } from "node:crypto";
import { RecipientType, type Row } from "./tables";

export class Recipients {
	private readonly ofUser = new Map<number, number>();
	private readonly ofChannel = new Map<number, number>();
	private readonly ofGroupDm = new Map<string, number>();
	readonly rows: Row[] = [];
	/** zerver_huddle: the group DMs met, with their members (who Zulip subscribes to them). */
	readonly groupDms: Array<{ row: Row; members: number[] }> = [];
	/** The first ID of a row: the ones below are the cross-realm bots'. */
	private readonly firstRowId: number;

	constructor(userIds: number[], channelIds: number[], crossRealmBotIds: number[] = []) {
		for (const id of crossRealmBotIds) this.ofUser.set(id, this.ofUser.size + 1);
		this.firstRowId = this.ofUser.size + 1;
		for (const id of userIds) this.ofUser.set(id, this.add(id, RecipientType.PERSONAL));
		for (const id of channelIds) this.ofChannel.set(id, this.add(id, RecipientType.STREAM));
	}

	private add(typeId: number, type: number): number {
		const id = this.firstRowId + this.rows.length;
		this.rows.push({ id, type_id: typeId, type });
		return id;
	}

	user(id: number): number | undefined {
		return this.ofUser.get(id);
	}

	channel(id: number): number | undefined {
		return this.ofChannel.get(id);
	}

	/**
	 * A direct message's recipient, from its participants (the sender included): the other user's
	 * personal recipient (one's own for a message to oneself), or, for three or more, their group
	 * DM's, made on first use (Zulip's huddle_hash: the SHA-1 of the sorted IDs).
	 */
	dm(participants: number[], sender: number): number | undefined {
		const ids = [...new Set(participants)].sort((a, b) => a - b);
		if (ids.length <= 2) return this.user(ids.find((id) => id !== sender) ?? sender);
		const key = ids.join(",");
		let id = this.ofGroupDm.get(key);
		if (id === undefined) {
			const groupId = this.groupDms.length + 1;
			id = this.add(groupId, RecipientType.DIRECT_MESSAGE_GROUP);
			this.ofGroupDm.set(key, id);
			const hash = createHash("sha1").update(key).digest("hex");
			this.groupDms.push({ row: { id: groupId, huddle_hash: hash, recipient: id, group_size: ids.length }, members: ids });
		}
		return id;
	}
}
