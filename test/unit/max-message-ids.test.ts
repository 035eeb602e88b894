import { MaxMessageIds } from "../../services/messages/max-message-ids";

function setup(ttlMs = 1000) {
	const stored = new Map<number, number>([[1, 10], [2, 20]]);
	let now = 0;
	let loads = 0;
	let gate: Promise<void> | undefined;
	const ids = new MaxMessageIds(
		async (u) => {
			loads++;
			await gate;
			return stored.get(u) ?? -1;
		},
		() => now,
		ttlMs,
	);
	return { ids, stored, loads: () => loads, advance: (ms: number) => (now += ms), hold: (p: Promise<void>) => (gate = p) };
}

test("a user's newest ID is loaded once, then raised by the messages sent to them", async () => {
	const t = setup();
	expect(await t.ids.get(1)).toBe(10);
	expect(await t.ids.get(1)).toBe(10);
	expect(t.loads()).toBe(1);
	t.ids.sent(11, [1, 2]);
	expect(await t.ids.get(1)).toBe(11);
	// An older ID (a late announcement) lowers nothing.
	t.ids.sent(5, [1]);
	expect(await t.ids.get(1)).toBe(11);
	expect(t.loads()).toBe(1);
});

test("forgotten users, or all of them, are loaded again", async () => {
	const t = setup();
	await t.ids.get(1);
	await t.ids.get(2);
	t.stored.set(1, 9);
	t.ids.forget([1]);
	expect(await t.ids.get(1)).toBe(9);
	expect(await t.ids.get(2)).toBe(20);
	t.stored.set(2, 19);
	t.ids.forget();
	expect(await t.ids.get(2)).toBe(19);
	expect(t.loads()).toBe(4);
});

test("an answer expires after the TTL", async () => {
	const t = setup(1000);
	await t.ids.get(1);
	t.stored.set(1, 12);
	t.advance(999);
	expect(await t.ids.get(1)).toBe(10);
	t.advance(2);
	expect(await t.ids.get(1)).toBe(12);
});

test("a load that a change overtook answers but is not kept", async () => {
	const t = setup();
	let release!: () => void;
	t.hold(new Promise<void>((r) => (release = r)));
	const pending = t.ids.get(1);
	t.ids.sent(30, [1]);
	t.stored.set(1, 30);
	release();
	expect(await pending).toBe(30);
	t.hold(Promise.resolve());
	t.stored.set(1, 31);
	expect(await t.ids.get(1)).toBe(31);
	expect(t.loads()).toBe(2);
});
