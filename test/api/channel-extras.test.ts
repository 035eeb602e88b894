// Subscription properties, default channels, channel folders, and topic visibility (the
// deprecated muted_topics endpoint and POST /user_topics), with their POST /register state.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, type Client } from "../support/http";

let app: TestApp;
let owner: Client;
let admin: Account;
let member: Account;
let mc: Client;
let general: number;
let secret: number;
const as = (a: Account) => client(app.baseUrl, a);

beforeAll(async () => {
	app = await startTestApp();
	owner = client(app.baseUrl, app.owner);
	admin = await app.createUser({ role: 200 });
	member = await app.createUser({ role: 400 });
	mc = as(member);
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [1, member.user_id] }));
	expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }], invite_only: true }));
	general = (await owner.get("/get_stream_id", { stream: "general" })).body.stream_id;
	secret = (await owner.get("/get_stream_id", { stream: "secret" })).body.stream_id;
});
afterAll(() => app.stop());

async function mySub(c: Client, id: number): Promise<any> {
	return (await c.get("/users/me/subscriptions")).body.subscriptions.find((s: { stream_id: number }) => s.stream_id === id);
}

describe("POST /users/me/subscriptions/properties", () => {
	test("changes the caller's own settings for a channel", async () => {
		const res = await mc.post("/users/me/subscriptions/properties", {
			subscription_data: [
				{ stream_id: general, property: "color", value: "#AABBCC" },
				{ stream_id: general, property: "pin_to_top", value: true },
				{ stream_id: general, property: "desktop_notifications", value: false },
				{ stream_id: general, property: "in_home_view", value: false },
			],
		});
		expectSuccess(res);
		// Zulip answers a bare success (no subscription_data echo).
		expect(res.body).toEqual({ result: "success", msg: "" });
		expect(await mySub(mc, general)).toMatchObject({ color: "#aabbcc", pin_to_top: true, desktop_notifications: false, is_muted: true, in_home_view: false });
		expect((await mySub(owner, general)).pin_to_top).toBe(false);
	});

	test.each([
		[{ stream_id: 0, property: "is_muted", value: true }, "Not subscribed to channel ID 0"],
		[{ property: "is_muted", value: true }, "secret"],
		[{ property: "color", value: "blue" }, "color is not a valid hex color code"],
		[{ property: "pin_to_top", value: "yes" }, "pin_to_top is not a boolean"],
		[{ property: "pin_to_top", value: null }, "pin_to_top is not a boolean"],
		[{ property: "flavor", value: "mint" }, "Unknown subscription property: flavor"],
	])("%j is refused and nothing changes", async (item, msg) => {
		const before = await mySub(mc, general);
		const data = [{ stream_id: general, property: "is_muted", value: false }, { stream_id: general, ...item }];
		if (msg === "secret") {
			expectError(await mc.post("/users/me/subscriptions/properties", { subscription_data: [{ stream_id: secret, ...item }] }), 400, "BAD_REQUEST", `Not subscribed to channel ID ${secret}`);
		} else {
			expectError(await mc.post("/users/me/subscriptions/properties", { subscription_data: data }), 400, "BAD_REQUEST", msg);
		}
		expect(await mySub(mc, general)).toEqual(before);
	});

	test("bad shapes are named", async () => {
		expectError(await mc.post("/users/me/subscriptions/properties", {}), 400, "REQUEST_VARIABLE_MISSING");
		expectError(await mc.post("/users/me/subscriptions/properties", { subscription_data: [{ stream_id: "x", property: "is_muted", value: true }] }), 400, "BAD_REQUEST");
	});
});

describe("default channels", () => {
	test("administrators add and remove them; they show in POST /register", async () => {
		expectError(await mc.post("/default_streams", { stream_id: general }), 400, "UNAUTHORIZED_PRINCIPAL");
		expectSuccess(await as(admin).post("/default_streams", { stream_id: general }));
		const reg = await mc.post("/register", { fetch_event_types: ["default_streams"] });
		expect(reg.body.realm_default_streams.map((s: { name: string }) => s.name)).toEqual(["general"]);
		expect((await mc.get("/default_streams")).body.default_streams.map((s: { name: string }) => s.name)).toEqual(["general"]);
		expectSuccess(await as(admin).delete("/default_streams", { stream_id: general }));
		expectError(await as(admin).delete("/default_streams", { stream_id: general }), 400, "BAD_REQUEST", "Channel is not a default channel.");
		expect((await mc.post("/register", { fetch_event_types: ["default_streams"] })).body.realm_default_streams).toEqual([]);
	});

	test("private or unknown channels cannot be defaults", async () => {
		expectError(await owner.post("/default_streams", { stream_id: secret }), 400, "BAD_REQUEST", "Private channels cannot be made default.");
		expectError(await owner.post("/default_streams", { stream_id: 999999 }), 400, "BAD_REQUEST", "Invalid channel ID");
		expectError(await owner.post("/default_streams", {}), 400, "REQUEST_VARIABLE_MISSING", "Missing 'stream_id' argument");
	});
});

describe("channel folders", () => {
	test("administrators create, rename and archive them; everyone lists them", async () => {
		expectError(await mc.post("/channel_folders/create", { name: "Mine" }), 400, "UNAUTHORIZED_PRINCIPAL");
		const id = (await owner.post("/channel_folders/create", { name: "Teams", description: "By team" })).body.channel_folder_id;
		const second = (await owner.post("/channel_folders/create", { name: "Social" })).body.channel_folder_id;
		const list = (await mc.get("/channel_folders")).body.channel_folders;
		expect(list.map((f: { id: number }) => f.id)).toEqual([id, second]);
		expect(list[0]).toMatchObject({ name: "Teams", description: "By team", rendered_description: "<p>By team</p>", order: 1, is_archived: false, creator_id: 1 });
		expectSuccess(await owner.patch(`/channel_folders/${id}`, { name: "Team channels" }));
		expectSuccess(await owner.patch(`/channel_folders/${second}`, { is_archived: true }));
		expect((await mc.get("/channel_folders")).body.channel_folders.map((f: { name: string }) => f.name)).toEqual(["Team channels"]);
		expect((await mc.get("/channel_folders", { include_archived: true })).body.channel_folders).toHaveLength(2);
		const reg = await mc.post("/register", { fetch_event_types: ["channel_folders"] });
		expect(reg.body.channel_folders).toHaveLength(2);
	});

	test("names must be present, short and unused; unknown folders are refused", async () => {
		expectError(await owner.post("/channel_folders/create", { name: " " }), 400, "BAD_REQUEST", "Channel folder name can't be empty.");
		expectError(await owner.post("/channel_folders/create", { name: "f".repeat(61) }), 400, "BAD_REQUEST", /too long/);
		expectError(await owner.post("/channel_folders/create", { name: "team CHANNELS" }), 400, "BAD_REQUEST", "Channel folder name 'team CHANNELS' already in use.");
		expectError(await owner.patch("/channel_folders/999999", { name: "x" }), 400, "BAD_REQUEST", "Invalid channel folder ID");
		expectError(await owner.patch("/channel_folders/1", {}), 400, "BAD_REQUEST", "No new data supplied");
	});
});

describe("topic visibility", () => {
	async function userTopics(c: Client = mc, capabilities: Record<string, boolean> = {}) {
		return (await c.post("/register", { fetch_event_types: ["user_topic"], client_capabilities: capabilities })).body.user_topics;
	}
	async function mutedTopics(c: Client = mc) {
		return (await c.post("/register", { fetch_event_types: ["muted_topics"] })).body.muted_topics;
	}

	test("muted_topics: add and remove by channel ID or name, idempotently", async () => {
		expectSuccess(await mc.patch("/users/me/subscriptions/muted_topics", { stream_id: general, topic: "lunch", op: "add" }));
		expectSuccess(await mc.patch("/users/me/subscriptions/muted_topics", { stream: "GENERAL", topic: "Lunch", op: "add" }));
		expect(await userTopics()).toEqual([{ stream_id: general, topic_name: "Lunch", last_updated: expect.any(Number), visibility_policy: 1 }]);
		expect(await mutedTopics()).toEqual([["general", "Lunch", expect.any(Number)]]);
		expectSuccess(await mc.patch("/users/me/subscriptions/muted_topics", { stream_id: general, topic: "lunch", op: "remove" }));
		expectSuccess(await mc.patch("/users/me/subscriptions/muted_topics", { stream_id: general, topic: "lunch", op: "remove" }));
		expect(await userTopics()).toEqual([]);
		// A topic with no messages can be muted too.
		expectSuccess(await mc.patch("/users/me/subscriptions/muted_topics", { stream_id: general, topic: "never used", op: "add" }));
	});

	test("muted_topics: exactly one of stream_id and stream; bad values refused", async () => {
		expectError(await mc.patch("/users/me/subscriptions/muted_topics", { topic: "t", op: "add" }), 400, "BAD_REQUEST", "Please choose one: 'stream' or 'stream_id'.");
		expectError(await mc.patch("/users/me/subscriptions/muted_topics", { stream_id: general, stream: "general", topic: "t", op: "add" }), 400, "BAD_REQUEST", "Please choose one: 'stream' or 'stream_id'.");
		const unknown = await mc.patch("/users/me/subscriptions/muted_topics", { stream: "nowhere", topic: "t", op: "add" });
		expectError(unknown, 400, "STREAM_DOES_NOT_EXIST");
		expect(unknown.body.stream).toBe("nowhere");
		expectError(await mc.patch("/users/me/subscriptions/muted_topics", { stream_id: secret, topic: "t", op: "add" }), 400, "BAD_REQUEST", "Invalid channel ID");
		expectError(await mc.patch("/users/me/subscriptions/muted_topics", { stream_id: general, topic: "t", op: "toggle" }), 400, "BAD_REQUEST", "Invalid op");
		expectError(await mc.patch("/users/me/subscriptions/muted_topics", { stream_id: general, op: "add" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'topic' argument");
		expectError(await mc.patch("/users/me/subscriptions/muted_topics", { stream_id: general, topic: "t".repeat(61), op: "add" }), 400, "BAD_REQUEST", /Topic too long/);
	});

	test("POST /user_topics sets each policy; 0 removes it", async () => {
		for (const policy of [1, 2, 3]) {
			expectSuccess(await mc.post("/user_topics", { stream_id: general, topic: "design", visibility_policy: policy }));
			expect((await userTopics()).find((t: { topic_name: string }) => t.topic_name === "design").visibility_policy).toBe(policy);
		}
		expectSuccess(await mc.post("/user_topics", { stream_id: general, topic: "design", visibility_policy: 0 }));
		expect((await userTopics()).find((t: { topic_name: string }) => t.topic_name === "design")).toBeUndefined();
		expectError(await mc.post("/user_topics", { stream_id: general, topic: "design", visibility_policy: 4 }), 400, "BAD_REQUEST", "Invalid visibility_policy");
		expectError(await mc.post("/user_topics", { stream_id: 999999, topic: "design", visibility_policy: 1 }), 400, "BAD_REQUEST", "Invalid channel ID");
	});

	test("the empty topic: '(no topic)' and the display name both mean it; clients see the display name unless they handle it", async () => {
		expectSuccess(await mc.post("/user_topics", { stream_id: general, topic: "(no topic)", visibility_policy: 3 }));
		expectSuccess(await mc.post("/user_topics", { stream_id: general, topic: "general chat", visibility_policy: 1 }));
		const plain = (await userTopics()).filter((t: { topic_name: string }) => t.topic_name === "general chat");
		expect(plain).toEqual([expect.objectContaining({ visibility_policy: 1 })]);
		const aware = (await userTopics(mc, { empty_topic_name: true })).filter((t: { topic_name: string }) => t.topic_name === "");
		expect(aware).toHaveLength(1);
	});

	test("muted_topics is left out when user_topic is asked for by name", async () => {
		const res = await mc.post("/register", { fetch_event_types: ["user_topic", "muted_topics"] });
		expect(res.body).toHaveProperty("user_topics");
		expect(res.body).not.toHaveProperty("muted_topics");
	});
});
