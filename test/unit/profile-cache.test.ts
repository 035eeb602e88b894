import { ServiceBroker } from "moleculer";
import { forgetCached, PROFILE_KEYS } from "../../services/users/accounts/profile-cache";

test("a change to some users drops their cached profiles by key, and the system bots' identities", async () => {
	const broker = new ServiceBroker({ logger: false, cacher: { type: "Memory", options: { ttl: 300, clone: false } } });
	broker.createService({
		name: "users",
		actions: {
			myProfile: { cache: { keys: PROFILE_KEYS }, handler: (ctx) => ({ user_id: (ctx.meta as { user: { user_id: number } }).user.user_id }) },
			notificationBot: { cache: { ttl: 3600 }, handler: () => ({ bot: 1 }) },
			welcomeBot: { cache: { ttl: 3600 }, handler: () => ({ bot: 2 }) },
		},
	});
	await broker.start();
	try {
		for (const user_id of [8, 9, 10]) await broker.call("users.myProfile", {}, { meta: { user: { user_id } } });
		await broker.call("users.notificationBot", {});
		await broker.call("users.welcomeBot");
		const keys = () => [...(broker.cacher as unknown as { cache: Map<string, unknown> }).cache.keys()].sort();
		expect(keys()).toHaveLength(5);
		await forgetCached(broker, [8, 10]);
		expect(keys()).toEqual(["users.myProfile:9"]);
	} finally {
		await broker.stop();
	}
});
