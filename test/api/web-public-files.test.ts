// Files for visitors without credentials, as Zulip's validate_attachment_request_for_spectator_access:
// a file (and its thumbnail) a message in a web-public channel links is served to anyone where
// the server allows web-public channels and the organization its spectators; every other file,
// and every path naming none, answers a request without credentials with the 401 it always did,
// and bad credentials are refused as before. The file's openness follows its messages: the
// channel made not web-public, the organization closed to spectators, the message deleted.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectSuccess, sendMessage, type Client } from "../support/http";
import { fetchSite, stillImage, uploadFile } from "../support/images";

let app: TestApp;
let owner: Client;
let alice: Account;
let bob: Account;
const as = (a: Account) => client(app.baseUrl, a);
const pathOf = (url: string) => url.replace(/^\/user_uploads\//, "");

beforeAll(async () => {
	app = await startTestApp({ webPublicStreams: true });
	owner = client(app.baseUrl, app.owner);
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	expectSuccess(await owner.patch("/realm", { enable_spectator_access: true }));
	for (const [name, extra] of [
		["showcase", { is_web_public: true }],
		["lobby", {}],
		["backroom", { invite_only: true }],
	] as const) {
		expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name }], principals: [app.owner.user_id, alice.user_id], ...extra }));
	}
});
afterAll(async () => {
	await app.stop();
});

async function upload(name: string, bytes: Uint8Array, type?: string): Promise<string> {
	const res = await uploadFile(app, alice, name, bytes, type);
	expectSuccess(res as any);
	return res.body.url;
}

/** Status, body and content type of a download by `a`, or without credentials (null). */
async function download(path: string, a: Account | null) {
	const res = await fetchSite(app, path, a);
	const bytes = Buffer.from(await res.arrayBuffer());
	return { status: res.status, type: res.headers.get("content-type"), bytes, text: bytes.toString() };
}

/** The refusal of a request without credentials, to the letter. */
async function expectUnauthorized(path: string) {
	const got = await download(path, null);
	expect(got.status).toBe(401);
	expect(JSON.parse(got.text)).toMatchObject({ result: "error", code: "UNAUTHORIZED" });
}

const post = (channel: string, content: string) => sendMessage(as(alice), { type: "stream", to: channel, topic: "files", content });
const channelId = async (name: string) => (await owner.get("/get_stream_id", { stream: name })).body.stream_id as number;

test("a file a web-public channel's message links is served without credentials, with the headers a reader gets", async () => {
	const url = await upload("notes.txt", new TextEncoder().encode("web-public notes"), "text/plain");
	await expectUnauthorized(url);
	await post("showcase", `[notes](${url})`);
	const visitor = await download(url, null);
	expect(visitor.status).toBe(200);
	expect(visitor.text).toBe("web-public notes");
	const member = await fetchSite(app, url, bob);
	expect(member.status).toBe(200);
	const visitorRes = await fetchSite(app, url, null);
	for (const h of ["content-type", "content-disposition", "content-length", "cache-control", "x-content-type-options"]) expect(visitorRes.headers.get(h)).toBe(member.headers.get(h));
	await visitorRes.arrayBuffer();
	await member.arrayBuffer();
	// Wrong credentials are refused as ever, web-public file or not.
	const wrong = await download(url, { ...bob, api_key: "x".repeat(32) });
	expect(wrong.status).toBe(401);
});

test("an image's thumbnail too, where its original is web-public; not otherwise", async () => {
	const open = await upload("open.png", await stillImage(300, 200, "png"), "image/png");
	const closed = await upload("closed.png", await stillImage(300, 200, "png"), "image/png");
	await post("showcase", `[open](${open})`);
	await post("lobby", `[closed](${closed})`);
	const thumb = (url: string) => `/user_uploads/thumbnail/${pathOf(url)}/840x560.webp`;
	const got = await download(thumb(open), null);
	expect([got.status, got.type]).toEqual([200, "image/webp"]);
	await expectUnauthorized(thumb(closed));
	// A format not made: what a visitor gets for any file they may not read.
	await expectUnauthorized(`/user_uploads/thumbnail/${pathOf(open)}/100x100.webp`);
	expect((await download(thumb(closed), bob)).status).toBe(200);
});

test("every other file, and any path naming none, is refused without credentials as before; readers with credentials are unchanged", async () => {
	const publicFile = await upload("public.txt", new TextEncoder().encode("members only"));
	const privateFile = await upload("private.txt", new TextEncoder().encode("subscribers only"));
	const unclaimed = await upload("draft.txt", new TextEncoder().encode("nobody's yet"));
	await post("lobby", `[public](${publicFile})`);
	await post("backroom", `[private](${privateFile})`);
	const dm = await upload("dm.txt", new TextEncoder().encode("direct"));
	await sendMessage(as(alice), { type: "direct", to: JSON.stringify([app.owner.user_id]), content: `[dm](${dm})` });
	for (const url of [publicFile, privateFile, unclaimed, dm]) await expectUnauthorized(url);
	const realm = pathOf(publicFile).split("/")[0];
	for (const path of [`/user_uploads/${realm}/${"a".repeat(3000)}/x.txt`, `/user_uploads/thumbnail/${realm}/${"a".repeat(3000)}/840x560.webp`, `/user_uploads/${realm}/ab/nonexistent/none.txt`, `/user_uploads/${realm}/${pathOf(publicFile).split("/").slice(1, 3).join("/")}/other.txt`, "/user_uploads/999/ab/cd/x.txt"]) {
		await expectUnauthorized(path);
	}
	// Paths that name no file at all, as before: "File not found." before any credentials are asked for.
	for (const path of ["/user_uploads/x/y", "/user_uploads/12"]) expect((await download(path, null)).status).toBe(404);
	// With credentials, the rules of members are as they were.
	expect((await download(publicFile, bob)).status).toBe(200);
	expect((await download(privateFile, bob)).status).toBe(404);
	expect((await download(privateFile, app.owner)).status).toBe(200);
});

test("the file stops being open to visitors when its channel stops being web-public, the organization closes to spectators, or its message goes", async () => {
	const url = await upload("moving.txt", new TextEncoder().encode("for a while"));
	const id = await post("showcase", `[moving](${url})`);
	expect((await download(url, null)).status).toBe(200);

	expectSuccess(await owner.patch("/realm", { enable_spectator_access: false }));
	await expectUnauthorized(url);
	expectSuccess(await owner.patch("/realm", { enable_spectator_access: true }));
	expect((await download(url, null)).status).toBe(200);

	const showcase = await channelId("showcase");
	expectSuccess(await owner.patch(`/streams/${showcase}`, { is_web_public: false }));
	await expectUnauthorized(url);
	expect((await download(url, bob)).status).toBe(200);
	expectSuccess(await owner.patch(`/streams/${showcase}`, { is_web_public: true }));
	expect((await download(url, null)).status).toBe(200);

	expectSuccess(await as(alice).delete(`/messages/${id}`));
	await expectUnauthorized(url);
	// Still the owner's.
	expect((await download(url, alice)).status).toBe(200);
});

test("a file linked from a web-public channel and a private one is open while any web-public message links it", async () => {
	const url = await upload("both.txt", new TextEncoder().encode("both"));
	await post("backroom", `[both](${url})`);
	await expectUnauthorized(url);
	const id = await post("showcase", `[both](${url})`);
	expect((await download(url, null)).status).toBe(200);
	expectSuccess(await as(alice).patch(`/messages/${id}`, { content: "no longer linked" }));
	await expectUnauthorized(url);
	expect((await download(url, bob)).status).toBe(404);
});
