// Rows of several messages (reactions, submessages), grouped by message in the order read.
export function byMessage<T extends { message_id: number }>(rows: T[]): Map<number, T[]> {
	const out = new Map<number, T[]>();
	for (const r of rows) {
		const list = out.get(r.message_id);
		if (list) list.push(r);
		else out.set(r.message_id, [r]);
	}
	return out;
}
