// Push notification registration through HTTP (POST and DELETE /users/me/apns_device_token and
// /users/me/android_gcm_reg_id), as Zulip's push_notifications views: tokens kept per user and
// kind, registering again changes nothing, Zulip's validation and errors (each changing nothing),
// humans only.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectSuccess } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";

let app: TestApp;
let alice: Account;
let bob: Account;
let bot: Account;
let snap: Snapshotter;
const as = (a: Account) => client(app.baseUrl, a);
const APNS = "/users/me/apns_device_token";
const FCM = "/users/me/android_gcm_reg_id";
const APP = "org.zulip.Zulip";

beforeAll(async () => {
	app = await startTestApp();
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	bot = await app.createUser({ full_name: "Push Bot", is_bot: true, bot_owner_id: alice.user_id });
	snap = await snapshotter(app);
});
afterAll(async () => {
	await snap.close();
	await app.stop();
});

test("APNs tokens: register, register again unchanged, remove once, per user", async () => {
	const token = "c0ffee".repeat(10) + "abcd";
	expectSuccess(await as(alice).post(APNS, { token, appid: APP }));
	// The same token again, even from another app ID: nothing changes (Zulip ignores the conflict).
	await snap.unchanged(async () => {
		expectSuccess(await as(alice).post(APNS, { token, appid: APP }));
		expectSuccess(await as(alice).post(APNS, { token, appid: "org.zulip.Zulip.beta" }));
	});
	// Another user's token, and the same text as an FCM token, are other records.
	await snap.refused(() => as(bob).delete(APNS, { token }), 400, "BAD_REQUEST", "Token does not exist");
	await snap.refused(() => as(alice).delete(FCM, { token }), 400, "BAD_REQUEST", "Token does not exist");
	expectSuccess(await as(bob).post(APNS, { token, appid: APP }));
	expectSuccess(await as(alice).delete(APNS, { token }));
	await snap.refused(() => as(alice).delete(APNS, { token }), 400, "BAD_REQUEST", "Token does not exist");
	expectSuccess(await as(bob).delete(APNS, { token }));
	// Zulip's documented example token, and base64 with its padding.
	expectSuccess(await as(alice).post(APNS, { token: "apple-tokenbb", appid: APP }));
	expectSuccess(await as(alice).post(APNS, { token: "YWJjZA==", appid: "com.example-app.1" }));
	expectSuccess(await as(alice).delete(APNS, { token: "apple-tokenbb" }));
	expectSuccess(await as(alice).delete(APNS, { token: "YWJjZA==" }));
});

test("FCM tokens: any text up to 4096 characters, registered once, removed once", async () => {
	const token = "fcm:token/with any characters é";
	expectSuccess(await as(alice).post(FCM, { token }));
	await snap.unchanged(async () => expectSuccess(await as(alice).post(FCM, { token })));
	const longest = "x".repeat(4096);
	expectSuccess(await as(alice).post(FCM, { token: longest }));
	expectSuccess(await as(alice).delete(FCM, { token: longest }));
	expectSuccess(await as(alice).delete(FCM, { token }));
	await snap.refused(() => as(alice).delete(FCM, { token }), 400, "BAD_REQUEST", "Token does not exist");
});

test("bad tokens and app IDs, missing parameters and bots are refused in Zulip's words", async () => {
	for (const path of [APNS, FCM]) {
		for (const method of ["post", "delete"] as const) {
			const params = method === "post" && path === APNS ? { appid: APP } : {};
			const send = (a: Account, extra: Record<string, unknown>) => as(a)[method](path, { ...params, ...extra });
			await snap.refused(() => send(alice, { token: "" }), 400, "BAD_REQUEST", "Empty or invalid length token");
			await snap.refused(() => send(alice, { token: "a".repeat(4097) }), 400, "BAD_REQUEST", "Empty or invalid length token");
			await snap.refused(() => send(alice, {}), 400, "REQUEST_VARIABLE_MISSING", "Missing 'token' argument");
			// Checked before the parameters are read, as Zulip's human_users_only.
			await snap.refused(() => as(bot)[method](path, {}), 400, "BAD_REQUEST", "This endpoint does not accept bot requests.");
		}
	}
	// Python counts a character beyond the BMP as one: 4096 of them are within the bound.
	expectSuccess(await as(alice).post(FCM, { token: "\u{1F600}".repeat(4096) }));
	expectSuccess(await as(alice).delete(FCM, { token: "\u{1F600}".repeat(4096) }));

	for (const bad of ["abcde", "abcdef", "abcdefg", "tökenbb", "\u{1F600}abc"]) {
		await snap.refused(() => as(alice).post(APNS, { token: bad, appid: APP }), 400, "BAD_REQUEST", "Invalid APNS token");
		await snap.refused(() => as(alice).delete(APNS, { token: bad }), 400, "BAD_REQUEST", "Invalid APNS token");
	}
	await snap.refused(() => as(alice).post(APNS, { token: "abcd" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'appid' argument");
	for (const appid of ["", "org.zulip Zulip", "org/zulip", "org.zülip"]) {
		await snap.refused(() => as(alice).post(APNS, { token: "abcd", appid }), 400, "BAD_REQUEST", "Invalid app ID");
	}
	// The app ID is read before the token is checked, as Zulip's parameter parsing does.
	await snap.refused(() => as(alice).post(APNS, { token: "", appid: "bad id" }), 400, "BAD_REQUEST", "Invalid app ID");
});
