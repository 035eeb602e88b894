// Recipient IDs of an export: Zulip gives every user (personal) and every channel a Recipient row
// that messages and subscriptions point to. This server keeps no such rows for users and channels,
// so an export numbers them itself: users first, in ID order, then channels. Zulip's import maps
// every ID anew, so the numbers only need to agree within one export.
import { RecipientType, type Row } from "./tables";

export class Recipients {
	private readonly ofUser = new Map<number, number>();
	private readonly ofChannel = new Map<number, number>();
	readonly rows: Row[] = [];

	constructor(userIds: number[], channelIds: number[]) {
		for (const id of userIds) this.ofUser.set(id, this.add(id, RecipientType.PERSONAL));
		for (const id of channelIds) this.ofChannel.set(id, this.add(id, RecipientType.STREAM));
	}

	private add(typeId: number, type: number): number {
		const id = this.rows.length + 1;
		this.rows.push({ id, type_id: typeId, type });
		return id;
	}

	user(id: number): number | undefined {
		return this.ofUser.get(id);
	}

	channel(id: number): number | undefined {
		return this.ofChannel.get(id);
	}
}
