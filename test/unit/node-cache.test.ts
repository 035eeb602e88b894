// The per-node read cache's rules: what it keeps, and when it keeps nothing.
import { NodeCache } from "../../shared/node-cache";

/** A loader answering each key with `${key}:${version}`, counting its calls. */
function loader() {
	const state = { version: 1, calls: 0 };
	const load = async (keys: number[]) => {
		state.calls++;
		return new Map(keys.map((k) => [k, `${k}:${state.version}`]));
	};
	return { state, load };
}

test("keeps what it loaded, loads only the keys it lacks, and forgets the keys named", async () => {
	const cache = new NodeCache<number, string>(10);
	const { state, load } = loader();
	expect([...(await cache.getMany([1, 2], load))]).toEqual([[1, "1:1"], [2, "2:1"]]);
	state.version = 2;
	expect([...(await cache.getMany([1, 2, 3], load)).values()].sort()).toEqual(["1:1", "2:1", "3:2"]);
	expect(state.calls).toBe(2);
	cache.forget([1]);
	expect((await cache.getMany([1, 2], load)).get(1)).toBe("1:2");
	expect((await cache.getMany([1, 2], load)).get(2)).toBe("2:1");
});

test("a key the loader does not answer is absent, and asked again next time", async () => {
	const cache = new NodeCache<number, string>(10);
	let calls = 0;
	const none = async () => {
		calls++;
		return new Map<number, string>();
	};
	expect((await cache.getMany([7], none)).size).toBe(0);
	expect((await cache.getMany([7], none)).size).toBe(0);
	expect(calls).toBe(2);
});

test("a load overtaken by a change is answered but not kept", async () => {
	const cache = new NodeCache<number, string>(10);
	const { state, load } = loader();
	const racing = cache.getMany([1], async (keys) => {
		const answer = await load(keys);
		cache.forget([1]); // the change is heard while the load is out
		return answer;
	});
	expect((await racing).get(1)).toBe("1:1");
	state.version = 2;
	expect((await cache.getMany([1], load)).get(1)).toBe("1:2");
});

test("nothing is kept while the transport is down, nor while paused; a pause drops everything", async () => {
	const cache = new NodeCache<number, string>(10);
	const { state, load } = loader();
	let up = false;
	cache.live = () => up;
	await cache.getMany([1], load);
	await cache.getMany([1], load);
	expect(state.calls).toBe(2);
	up = true;
	await cache.getMany([1], load);
	await cache.getMany([1], load);
	expect(state.calls).toBe(3);
	cache.pause(60_000);
	await cache.getMany([1], load);
	await cache.getMany([1], load);
	expect(state.calls).toBe(5);
	cache.pause(0);
	state.version = 2;
	expect((await cache.getMany([1], load)).get(1)).toBe("1:2");
	expect((await cache.getMany([1], load)).get(1)).toBe("1:2");
	expect(state.calls).toBe(6);
});

test("past its bound it starts over", async () => {
	const cache = new NodeCache<number, string>(2);
	const { state, load } = loader();
	await cache.getMany([1, 2], load);
	await cache.getMany([3], load);
	state.version = 2;
	expect((await cache.getMany([3], load)).get(3)).toBe("3:1");
	expect((await cache.getMany([1], load)).get(1)).toBe("1:2");
});
