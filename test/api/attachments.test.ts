// Attachments through HTTP, as Zulip's: a message that links an upload claims it (sent, edited,
// deleted, moved), and whoever may read such a message may read the file (downloads and temporary
// URLs alike), nobody else, without learning it exists; GET /attachments and
// DELETE /attachments/{attachment_id} with their refusals changing nothing; the owner's
// `attachment` events; has:attachment follows the claims.
import { startTestApp, type TestApp, type Account } from "../support/app";
import { client, expectError, expectSuccess, sendMessage, type Client } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { eventQueues, recordEvents, type QueueReader } from "../support/events";
import { clock } from "../../shared/clock";
import { basicAuth, stillImage, uploadFile } from "../support/images";

let app: TestApp;
let site: string;
let snap: Snapshotter;
/** Alice uploads; Bob shares her channels; Carol is a member in none of the private ones; Gus a guest in none. */
let alice: Account, bob: Account, carol: Account, gus: Account;
let events: QueueReader;
const c = (a: Account): Client => client(app.baseUrl, a);
const basic = basicAuth;

async function upload(a: Account, name: string, text = `contents of ${name}`): Promise<{ url: string; path_id: string; size: number }> {
	const res = await uploadFile(app, a, name, new TextEncoder().encode(text), "text/plain");
	const body = res.body as { result: string; url: string };
	expect([res.status, body.result]).toEqual([200, "success"]);
	return { url: body.url, path_id: body.url.replace(/^\/user_uploads\//, ""), size: Buffer.byteLength(text) };
}

/** The HTTP status of a download of `url` by `a`. */
async function status(url: string, a: Account): Promise<number> {
	const res = await fetch(`${site}${url}`, { headers: { Authorization: basic(a) } });
	await res.arrayBuffer();
	return res.status;
}

/** Who of these users may download `url`, as [200 or 404, ...]. */
const statuses = (url: string, users: Account[]) => Promise.all(users.map((u) => status(url, u)));

async function channelId(name: string): Promise<number> {
	return (await c(alice).get("/get_stream_id", { stream: name })).body.stream_id;
}

async function attachmentsOf(a: Account): Promise<{ attachments: any[]; upload_space_used: number }> {
	const res = await c(a).get("/attachments");
	expectSuccess(res);
	return res.body;
}

async function timestampOf(id: number): Promise<number> {
	const res = await c(alice).get(`/messages/${id}`);
	expectSuccess(res);
	return res.body.message.timestamp;
}

/** The IDs of `a`'s messages with has:attachment (or its negation, or another has: operand) in a channel. */
async function withAttachment(a: Account, channel: string, negated = false, operand = "attachment"): Promise<number[]> {
	const res = await c(a).get("/messages", {
		anchor: "newest",
		num_before: 100,
		num_after: 0,
		narrow: JSON.stringify([
			{ operator: "channel", operand: channel },
			{ operator: "has", operand, negated },
		]),
	});
	expectSuccess(res);
	return res.body.messages.map((m: { id: number }) => m.id);
}

const attachmentEvents = async (a: Account) => (await events(a)).filter((e) => e.type === "attachment");

beforeAll(async () => {
	app = await startTestApp();
	site = app.baseUrl.replace(/\/api\/v1$/, "");
	alice = await app.createUser({ full_name: "Alice" });
	bob = await app.createUser({ full_name: "Bob" });
	carol = await app.createUser({ full_name: "Carol" });
	gus = await app.createUser({ full_name: "Gus", role: 600 });
	expectSuccess(await c(alice).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "open" }]), principals: JSON.stringify([alice.user_id, bob.user_id, carol.user_id]) }));
	expectSuccess(
		await c(alice).post("/users/me/subscriptions", {
			subscriptions: JSON.stringify([{ name: "vault" }]),
			invite_only: true,
			history_public_to_subscribers: true,
			principals: JSON.stringify([alice.user_id, bob.user_id]),
		}),
	);
	expectSuccess(
		await c(alice).post("/users/me/subscriptions", {
			subscriptions: JSON.stringify([{ name: "sealed" }]),
			invite_only: true,
			history_public_to_subscribers: false,
			principals: JSON.stringify([alice.user_id]),
		}),
	);
	snap = await snapshotter(app);
	events = await eventQueues(c, [alice, bob], { register: { event_types: JSON.stringify(["attachment"]) } });
});
afterAll(async () => {
	await snap?.close();
	await app?.stop();
});

test("an upload is its owner's alone until a message links it; a public channel's message opens it to members, not to guests", async () => {
	const before = (await attachmentsOf(alice)).upload_space_used;
	const file = await upload(alice, "plan.txt");
	const [added] = await attachmentEvents(alice);
	expect(added).toEqual({
		type: "attachment",
		op: "add",
		attachment: { id: expect.any(Number), name: "plan.txt", path_id: file.path_id, size: file.size, create_time: expect.any(Number), messages: [] },
		upload_space_used: before + file.size,
	});
	expect(await statuses(file.url, [alice, bob, carol, gus])).toEqual([200, 404, 404, 404]);

	const id = await sendMessage(c(alice), { type: "stream", to: "open", topic: "files", content: `The plan: [plan.txt](${file.url})` });
	// Members read it (Carol is subscribed, and the channel is public); a guest outside it does not.
	expect(await statuses(file.url, [alice, bob, carol, gus])).toEqual([200, 200, 200, 404]);
	const date_sent = (await timestampOf(id)) * 1000;
	const [updated] = await attachmentEvents(alice);
	expect(updated).toEqual({ type: "attachment", op: "update", attachment: { ...added.attachment, messages: [{ id, date_sent }] }, upload_space_used: before + file.size });
	// Only the owner hears of their files.
	expect(await attachmentEvents(bob)).toEqual([]);

	const listed = await attachmentsOf(alice);
	expect(listed.upload_space_used).toBe(before + file.size);
	expect(listed.attachments.find((a) => a.path_id === file.path_id)).toEqual({ ...added.attachment, messages: [{ id, date_sent }] });
	expect((await attachmentsOf(bob)).attachments).toEqual([]);

	// Temporary URLs follow the same rule.
	const tmp = await c(bob).get(`/user_uploads/${file.path_id}`);
	expectSuccess(tmp);
	expect(await status(tmp.body.url, gus)).toBe(200);
	expectError(await c(gus).get(`/user_uploads/${file.path_id}`), 404, "NOT_FOUND", "File not found.");

	// has:attachment finds the message; a link to an upload that does not exist claims nothing.
	const fake = await sendMessage(c(alice), { type: "stream", to: "open", topic: "files", content: `[gone](/user_uploads/${file.path_id.replace(/plan\.txt$/, "other.txt")})` });
	const absolute = await sendMessage(c(alice), { type: "stream", to: "open", topic: "files", content: `http://chat.test${file.url}` });
	const elsewhere = await sendMessage(c(alice), { type: "stream", to: "open", topic: "files", content: `https://example.com${file.url}` });
	expect(await withAttachment(bob, "open")).toEqual([id, absolute]);
	const without = await withAttachment(bob, "open", true);
	expect(without).toEqual(expect.arrayContaining([fake, elsewhere]));
	expect(without).not.toContain(id);
	// A link with the server's own address claims the file as a relative one does.
	expect((await attachmentsOf(alice)).attachments.find((a) => a.path_id === file.path_id).messages.map((m: { id: number }) => m.id)).toEqual([id, absolute]);
});

test("a private channel's message opens a file to its subscribers alone; a link by someone who cannot read the file claims nothing", async () => {
	const file = await upload(alice, "secret.txt");
	const vault = await sendMessage(c(alice), { type: "stream", to: "vault", topic: "t", content: `[secret](${file.url})` });
	expect(await statuses(file.url, [alice, bob, carol, gus])).toEqual([200, 200, 404, 404]);
	// A refusal says what a missing file says.
	const missing = await fetch(`${site}${file.url.replace(/secret\.txt$/, "nothing.txt")}`, { headers: { Authorization: basic(carol) } });
	const refused = await fetch(`${site}${file.url}`, { headers: { Authorization: basic(carol) } });
	expect(await refused.text()).toBe(await missing.text());

	// Carol links it where everyone reads: she may not read it, so her message claims nothing.
	await attachmentEvents(alice);
	const carols = await sendMessage(c(carol), { type: "stream", to: "open", topic: "leak", content: `[look](${file.url})` });
	expect(await statuses(file.url, [carol, gus])).toEqual([404, 404]);
	expect(await attachmentEvents(alice)).toEqual([]);
	expect(await withAttachment(bob, "open", true)).toContain(carols);

	// Bob may read it and shares it in the public channel: now every member may.
	const bobs = await sendMessage(c(bob), { type: "stream", to: "open", topic: "share", content: `[shared](${file.url})` });
	expect(await statuses(file.url, [carol, gus])).toEqual([200, 404]);
	const [update] = await attachmentEvents(alice);
	expect(update.attachment.messages.map((m: { id: number }) => m.id)).toEqual([vault, bobs]);
	expect(await withAttachment(carol, "open")).toContain(bobs);
});

test("a channel whose history is not shared: only those who received the message read the file; direct messages: their recipients", async () => {
	const file = await upload(alice, "sealed.txt");
	await sendMessage(c(alice), { type: "stream", to: "sealed", topic: "t", content: `[f](${file.url})` });
	// Bob joins afterwards: he did not receive the message and the history is not his to read.
	expectSuccess(await c(alice).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "sealed" }]), principals: JSON.stringify([bob.user_id]) }));
	expect(await statuses(file.url, [alice, bob, carol])).toEqual([200, 404, 404]);

	const dm = await upload(alice, "dm.txt");
	await sendMessage(c(alice), { type: "direct", to: JSON.stringify([bob.user_id]), content: `[dm](${dm.url})` });
	expect(await statuses(dm.url, [alice, bob, carol, gus])).toEqual([200, 200, 404, 404]);
});

test("an edit claims the uploads it links anew and drops those it no longer links; a deletion drops its claims", async () => {
	const one = await upload(alice, "one.txt");
	const two = await upload(alice, "two.txt");
	const id = await sendMessage(c(alice), { type: "stream", to: "vault", topic: "edits", content: `[one](${one.url})` });
	expect(await statuses(one.url, [bob])).toEqual([200]);
	expect(await statuses(two.url, [bob])).toEqual([404]);
	await attachmentEvents(alice);

	expectSuccess(await c(alice).patch(`/messages/${id}`, { content: `[two](${two.url}) instead` }));
	expect(await statuses(one.url, [bob])).toEqual([404]);
	expect(await statuses(two.url, [bob])).toEqual([200]);
	const updates = await attachmentEvents(alice);
	expect(updates.map((e) => [e.op, e.attachment.path_id, e.attachment.messages.map((m: { id: number }) => m.id)]).sort()).toEqual(
		[
			["update", one.path_id, []],
			["update", two.path_id, [id]],
		].sort(),
	);
	const listed = (await attachmentsOf(alice)).attachments;
	expect(listed.find((a) => a.path_id === one.path_id).messages).toEqual([]);
	expect(listed.find((a) => a.path_id === two.path_id).messages).toEqual([{ id, date_sent: (await timestampOf(id)) * 1000 }]);
	expect(await withAttachment(bob, "vault")).toContain(id);

	// Editing other words keeps the claim; editing the link away drops it and has:attachment with it.
	expectSuccess(await c(alice).patch(`/messages/${id}`, { content: `[two](${two.url}) after all` }));
	expect(await attachmentEvents(alice)).toEqual([]);
	expect(await withAttachment(bob, "vault")).toContain(id);
	expectSuccess(await c(alice).patch(`/messages/${id}`, { content: "no files" }));
	expect(await statuses(two.url, [bob])).toEqual([404]);
	expect(await withAttachment(bob, "vault")).not.toContain(id);
	expect(await withAttachment(bob, "vault", true)).toContain(id);

	// Linked again, then deleted: the file is its owner's alone again, and stays.
	expectSuccess(await c(alice).patch(`/messages/${id}`, { content: `[two](${two.url})` }));
	expect(await statuses(two.url, [bob])).toEqual([200]);
	await attachmentEvents(alice);
	expectSuccess(await c(alice).delete(`/messages/${id}`));
	expect(await statuses(two.url, [alice, bob])).toEqual([200, 404]);
	const [dropped] = await attachmentEvents(alice);
	expect([dropped.op, dropped.attachment.path_id, dropped.attachment.messages]).toEqual(["update", two.path_id, []]);
});

test("a scheduled message claims its uploads when it is sent, not before", async () => {
	const file = await upload(alice, "later.txt");
	const at = Math.floor(clock.nowMs() / 1000) + 3600;
	const res = await c(alice).post("/scheduled_messages", { type: "stream", to: await channelId("vault"), topic: "later", content: `[l](${file.url})`, scheduled_delivery_timestamp: at });
	expectSuccess(res);
	expect(await statuses(file.url, [bob])).toEqual([404]);
	const pending = async () => (await c(alice).get("/scheduled_messages")).body.scheduled_messages.length;
	clock.advance(3601 * 1000);
	try {
		// This sweep, or the service's own timer meanwhile, delivers it.
		await app.node.broker.call("scheduling.sweep", { replica: "attachments-test" });
		for (let i = 0; i < 100 && (await pending()); i++) await new Promise((r) => setTimeout(r, 50));
	} finally {
		clock.reset();
	}
	expect(await pending()).toBe(0);
	expect(await statuses(file.url, [alice, bob, carol])).toEqual([200, 200, 404]);
	const [sent] = await withAttachment(bob, "vault").then((ids) => ids.slice(-1));
	expect((await attachmentsOf(alice)).attachments.find((a) => a.path_id === file.path_id).messages.map((m: { id: number }) => m.id)).toEqual([sent]);
});

test("has:image and has:attachment for uploads: an image's preview is an image and an attachment, another file an attachment alone, both follow edits", async () => {
	const png = await uploadFile(app, alice, "chart.png", await stillImage(40, 30, "png"), "image/png");
	expect(png.status).toBe(200);
	const text = await upload(alice, "notes.txt");
	const image = await sendMessage(c(alice), { type: "stream", to: "vault", topic: "has", content: `[chart](${png.body.url})` });
	const file = await sendMessage(c(alice), { type: "stream", to: "vault", topic: "has", content: `[notes](${text.url})` });
	const plain = await sendMessage(c(alice), { type: "stream", to: "vault", topic: "has", content: "no files" });
	const has = async (operand: string, negated = false) => (await withAttachment(bob, "vault", negated, operand)).filter((id) => [image, file, plain].includes(id));
	expect(await has("image")).toEqual([image]);
	expect(await has("image", true)).toEqual([file, plain]);
	expect(await has("attachment")).toEqual([image, file]);
	expect(await has("attachment", true)).toEqual([plain]);
	// The image edited away: neither an image nor an attachment any more; linked from the plain message instead.
	expectSuccess(await c(alice).patch(`/messages/${image}`, { content: "gone" }));
	expectSuccess(await c(alice).patch(`/messages/${plain}`, { content: `[chart](${png.body.url})` }));
	expect(await has("image")).toEqual([plain]);
	expect(await has("attachment")).toEqual([file, plain]);
	expect(await statuses(png.body.url, [bob, carol])).toEqual([200, 404]);
});

test("a message moved to a private channel takes its files' openness with it", async () => {
	const file = await upload(alice, "moving.txt");
	const id = await sendMessage(c(alice), { type: "stream", to: "open", topic: "move me", content: `[m](${file.url})` });
	expect(await statuses(file.url, [carol, gus])).toEqual([200, 404]);
	// Into a channel whose history is not shared: Carol loses the message, and the file with it.
	expectSuccess(await c(alice).patch(`/messages/${id}`, { stream_id: await channelId("sealed"), propagate_mode: "change_one" }));
	expect(await statuses(file.url, [alice, carol])).toEqual([200, 404]);
	expectSuccess(await c(alice).patch(`/messages/${id}`, { stream_id: await channelId("open"), propagate_mode: "change_one" }));
	expect(await statuses(file.url, [carol])).toEqual([200]);
});

test("DELETE /attachments/{attachment_id}: someone else's or an unknown ID is refused, changing nothing; the owner's goes with its bytes and quota", async () => {
	const file = await upload(alice, "doomed.txt", "x".repeat(1000));
	await sendMessage(c(alice), { type: "stream", to: "open", topic: "doomed", content: `[d](${file.url})` });
	const { attachments, upload_space_used } = await attachmentsOf(alice);
	const doomed = attachments.find((a) => a.path_id === file.path_id);
	await attachmentEvents(alice);

	await snap.refused(() => c(bob).delete(`/attachments/${doomed.id}`), 400, "BAD_REQUEST", "Invalid attachment");
	await snap.refused(() => c(alice).delete("/attachments/999999"), 400, "BAD_REQUEST", "Invalid attachment");
	// As Zulip's URL pattern, which takes digits alone.
	await snap.refused(() => c(alice).delete("/attachments/abc"), 404, "NOT_FOUND", /./);
	await snap.refused(() => c(alice).delete(`/attachments/${doomed.id}`, {}, { auth: null }), 401, "UNAUTHORIZED", /./);
	for (const odd of ["-1", "1.5", "%00"]) await snap.refused(() => c(alice).delete(`/attachments/${odd}`), 404, "NOT_FOUND", "Not Found");
	await snap.refused(() => c(alice).delete("/attachments/0"), 400, "BAD_REQUEST", "Invalid attachment");
	await snap.refused(() => c(alice).delete("/attachments/99999999999999999999"), 400, "BAD_REQUEST", "attachment_id is too large");
	expect(await status(file.url, bob)).toBe(200);

	expectSuccess(await c(alice).delete(`/attachments/${doomed.id}`));
	expect(await attachmentEvents(alice)).toEqual([{ type: "attachment", op: "remove", attachment: { id: doomed.id }, upload_space_used: upload_space_used - 1000 }]);
	const after = await attachmentsOf(alice);
	expect(after.upload_space_used).toBe(upload_space_used - 1000);
	expect(after.attachments.map((a) => a.id)).not.toContain(doomed.id);
	expect(await statuses(file.url, [alice, bob])).toEqual([404, 404]);
	await snap.refused(() => c(alice).delete(`/attachments/${doomed.id}`), 400, "BAD_REQUEST", "Invalid attachment");
});

test("GET /attachments lists the caller's files alone, oldest first", async () => {
	const mine = await upload(bob, "bobs.txt");
	const { attachments } = await attachmentsOf(bob);
	expect(attachments.map((a) => a.path_id)).toEqual([mine.path_id]);
	const ids = (await attachmentsOf(alice)).attachments.map((a) => a.id);
	expect(ids).toEqual([...ids].sort((a, b) => a - b));
	expect(ids).not.toContain(attachments[0].id);
});

test("a channel made private takes its files' openness with it, and made public again gives it back", async () => {
	expectSuccess(await c(alice).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "flip" }]), principals: JSON.stringify([alice.user_id, bob.user_id]) }));
	const file = await upload(alice, "flip.txt");
	await sendMessage(c(alice), { type: "stream", to: "flip", topic: "t", content: `[f](${file.url})` });
	expect(await statuses(file.url, [bob, carol, gus])).toEqual([200, 200, 404]);
	const id = await channelId("flip");
	expectSuccess(await c(alice).patch(`/streams/${id}`, { is_private: true }));
	expect(await statuses(file.url, [alice, bob, carol, gus])).toEqual([200, 200, 404, 404]);
	expectSuccess(await c(alice).patch(`/streams/${id}`, { is_private: false }));
	expect(await statuses(file.url, [bob, carol, gus])).toEqual([200, 200, 404]);
});

test("a guest reads a public channel's files once subscribed (its shared history), and no longer after leaving it", async () => {
	const file = await upload(alice, "for-everyone.txt");
	await sendMessage(c(alice), { type: "stream", to: "open", topic: "guests", content: `[e](${file.url})` });
	expect(await status(file.url, gus)).toBe(404);
	expectSuccess(await c(alice).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "open" }]), principals: JSON.stringify([gus.user_id]) }));
	expect(await status(file.url, gus)).toBe(200);
	expectSuccess(await c(gus).delete("/users/me/subscriptions", { subscriptions: JSON.stringify(["open"]) }));
	expect(await status(file.url, gus)).toBe(404);
});

// Last: it moves the clock weeks ahead, and every file no message links goes.
test("files no message links are removed five weeks after their upload; a deleted message's, 30 days after the deletion at the soonest; a scheduled message's, not while it waits", async () => {
	const seen = await recordEvents(app, ["uploads.attachmentsChanged"]);
	const lonely = await upload(alice, "lonely.txt");
	const kept = await upload(alice, "kept.txt");
	const orphan = await upload(alice, "orphan.txt");
	await sendMessage(c(alice), { type: "stream", to: "vault", topic: "kept", content: `[k](${kept.url})` });
	const doomed = await sendMessage(c(alice), { type: "stream", to: "open", topic: "orphan", content: `[o](${orphan.url})` });
	const planned = await upload(alice, "planned.txt");
	const scheduled = await c(alice).post("/scheduled_messages", {
		type: "stream",
		to: await channelId("vault"),
		topic: "planned",
		content: `[p](${planned.url})`,
		scheduled_delivery_timestamp: Math.floor(clock.nowMs() / 1000) + 80 * 24 * 3600,
	});
	expectSuccess(scheduled);
	const sweep = () => app.node.broker.call<{ removed: number }, Record<string, never>>("uploads.sweepUnclaimed", {});
	const paths = async () => (await attachmentsOf(alice)).attachments.map((a) => a.path_id);
	const DAY = 24 * 3600 * 1000;
	try {
		clock.advance(34 * DAY);
		expectSuccess(await client(app.baseUrl, app.owner).delete(`/messages/${doomed}`));
		clock.advance(2 * DAY);
		const before = (await attachmentsOf(alice)).upload_space_used;
		seen.length = 0;
		await sweep();
		expect(await statuses(lonely.url, [alice])).toEqual([404]);
		expect(await statuses(kept.url, [alice, bob])).toEqual([200, 200]);
		expect(await statuses(orphan.url, [alice, bob])).toEqual([200, 404]);
		expect(await statuses(planned.url, [alice])).toEqual([200]);
		expect(await paths()).toEqual(expect.arrayContaining([kept.path_id, orphan.path_id, planned.path_id]));
		expect(await paths()).not.toContain(lonely.path_id);
		const after = (await attachmentsOf(alice)).upload_space_used;
		expect(before - after).toBeGreaterThanOrEqual(lonely.size);
		const removed = seen.flatMap((e) => e.payload.changes).filter((ch: any) => ch.user_id === alice.user_id);
		expect(removed).toEqual(expect.arrayContaining([{ user_id: alice.user_id, op: "remove", attachment: { id: expect.any(Number) } }]));
		expect(removed.every((ch: any) => ch.op === "remove")).toBe(true);

		// 29 days after the deletion the file is still kept; past 30 it goes.
		clock.advance(27 * DAY);
		await sweep();
		expect(await statuses(orphan.url, [alice])).toEqual([200]);
		clock.advance(2 * DAY);
		await sweep();
		expect(await statuses(orphan.url, [alice])).toEqual([404]);
		expect(await statuses(kept.url, [alice])).toEqual([200]);
		expect(await paths()).toEqual(expect.arrayContaining([kept.path_id]));

		// The scheduled message still waits (due on day 80): its file stays; deleted, the file goes.
		expect(await statuses(planned.url, [alice])).toEqual([200]);
		expectSuccess(await c(alice).delete(`/scheduled_messages/${scheduled.body.scheduled_message_id}`));
		clock.advance(8 * DAY);
		await sweep();
		expect(await statuses(planned.url, [alice])).toEqual([404]);
	} finally {
		clock.reset();
	}
});
