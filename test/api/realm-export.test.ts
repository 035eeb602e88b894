// Organization data exports through HTTP: an administrator starts one (POST /export/realm answers
// its ID at once), the `realm_export` event tells administrators it is pending and then done with
// its URL, GET /export/realm lists it, the archive downloads (administrators only) as a .tar.gz in
// Zulip's layout holding the public users, channels and messages and nothing private, and
// DELETE /export/realm/{export_id} removes its file. Every refusal (not an administrator, unknown
// or undeletable exports, bad export_type, Zulip's owner rules, the weekly rate limit) changes
// nothing. GET /export/realm/consents lists each user's allow_private_data_export, and a change of
// it is Zulip's `realm_export_consent` event to the administrators.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { Readable } from "node:stream";
import mongoose from "mongoose";
import { extract } from "tar-stream";
import { startTestApp, type Account, type Cast, type TestApp } from "../support/app";
import { client, expectSuccess, sendMessage, type Client } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";
import { eventQueues, type Ev, type QueueReader } from "../support/events";
import { copyMessage } from "../support/fixtures";
import { eventually } from "../support/eventually";
import { FileStore } from "../../services/uploads/file-store";
import { realmExportModel } from "../../services/uploads/models/realm-export";
import { failStalled, STALE_MS, type ExportDeps } from "../../services/uploads/export/run-export";
import { importZulip } from "../../deploy/import/import-zulip";

let app: TestApp;
let cast: Cast;
let hidden: Account;
let bot: Account;
let snap: Snapshotter;
let site: string;
let events: QueueReader;
let uploadsDb: mongoose.Connection;
const as = (a: Account): Client => client(app.baseUrl, a);

const PUBLIC_CHANNEL = "export-town-square";
const PRIVATE_CHANNEL = "export-back-room";
const PUBLIC_TEXT = "The harvest festival is on Saturday";
const PRIVATE_TEXT = "confidential-budget-figure-4217";
const DM_TEXT = "a-direct-word-nobody-exports";
const ADMIN_ERROR = "Must be an organization administrator";

const basic = (a: Account) => `Basic ${Buffer.from(`${a.email}:${a.api_key}`).toString("base64")}`;
const download = (url: string, a: Account | null) => fetch(`${site}${new URL(url).pathname}`, { headers: a ? { Authorization: basic(a) } : {} });

/** The files of a .tar.gz, by name. */
async function untar(gz: Buffer): Promise<Map<string, string>> {
	const files = new Map<string, string>();
	const ex = extract();
	const done = new Promise<void>((resolve, reject) => {
		ex.on("entry", (header, stream, next) => {
			const parts: Buffer[] = [];
			stream.on("data", (d: unknown) => parts.push(d as Buffer));
			stream.on("end", () => {
				files.set(header.name, Buffer.concat(parts).toString("utf8"));
				next();
			});
			stream.resume();
		});
		ex.on("finish", resolve);
		ex.on("error", reject);
	});
	Readable.from([gunzipSync(gz)]).pipe(ex);
	await done;
	return files;
}

/** Reads `u`'s queue until a `realm_export` event satisfies `ok` (a hang is bounded, not timed). */
async function exportEvent(u: Account, ok: (e: Ev) => boolean): Promise<Ev> {
	return eventually(async () => (await events(u)).find((e) => e.type === "realm_export" && ok(e)), "such a realm_export event");
}

const exportOf = (e: Ev, id: number) => (e.exports as Ev[]).find((x) => x.id === id);

/** Starts an export as `a` and waits for it to finish; answers its final view. */
async function completedExport(a: Account, params: Record<string, unknown> = {}): Promise<Ev> {
	const res = await as(a).post("/export/realm", params);
	expectSuccess(res);
	const done = await exportEvent(cast.admin, (e) => exportOf(e, res.body.id)?.pending === false);
	return exportOf(done, res.body.id)!;
}

beforeAll(async () => {
	app = await startTestApp();
	site = app.baseUrl.replace(/\/api\/v1$/, "");
	cast = await app.createCast();
	await app.grant(cast.admin, "can_create_users");
	hidden = await app.createUser({ full_name: "Hidden Address", email_address_visibility: 4 });
	bot = await app.createUser({ full_name: "Export Bot", is_bot: true, bot_owner_id: cast.admin.user_id });
	expectSuccess(await as(cast.admin).post("/users/me/subscriptions", { subscriptions: [{ name: PUBLIC_CHANNEL }], principals: [cast.admin.user_id, cast.member.user_id] }));
	expectSuccess(await as(cast.member2).post("/users/me/subscriptions", { subscriptions: [{ name: PRIVATE_CHANNEL }], invite_only: true }));
	const publicId = await sendMessage(as(cast.member), { type: "stream", to: PUBLIC_CHANNEL, topic: "plans", content: PUBLIC_TEXT });
	// More than one message file's worth: 1,000 messages a file, as Zulip's.
	await copyMessage(app, publicId, 1100);
	const privateId = await sendMessage(as(cast.member2), { type: "stream", to: PRIVATE_CHANNEL, topic: "money", content: PRIVATE_TEXT });
	expectSuccess(await as(cast.admin).post(`/messages/${publicId}/reactions`, { emoji_name: "tada" }));
	expectSuccess(await as(cast.member).post(`/messages/${publicId}/reactions`, { emoji_name: "zulip" }));
	const field = await as(app.owner).post("/realm/profile_fields", { name: "Phone", field_type: 1 });
	expectSuccess(field);
	expectSuccess(await as(cast.member).patch("/users/me/profile_data", { data: [{ id: field.body.id, value: "+1 555 0100" }] }));
	expectSuccess(await as(cast.member2).post(`/messages/${privateId}/reactions`, { emoji_name: "octopus" }));
	await sendMessage(as(cast.member), { type: "direct", to: JSON.stringify([cast.member2.user_id]), content: DM_TEXT });
	events = await eventQueues(as, [app.owner, cast.admin, cast.member]);
	snap = await snapshotter(app);
	uploadsDb = await mongoose.createConnection(process.env.TEST_MONGO_URL!).asPromise();
	uploadsDb = uploadsDb.useDb(`${app.node.config.dbPrefix}_uploads`);
});
afterAll(async () => {
	await uploadsDb?.close();
	await snap?.close();
	await app?.stop();
});

let first: Ev;
let archive: Buffer;

test("an administrator's export: pending then done in realm_export events, listed, downloadable, in Zulip's layout with public data only", async () => {
	const res = await as(cast.admin).post("/export/realm");
	expectSuccess(res);
	expect(Number.isInteger(res.body.id)).toBe(true);
	const id: number = res.body.id;

	// Pending first, to every administrator (the owner too), and never to a member.
	const pending = exportOf(await exportEvent(app.owner, (e) => exportOf(e, id)?.pending === true), id)!;
	expect(pending).toEqual({ id, export_time: expect.any(Number), acting_user_id: cast.admin.user_id, export_url: null, deleted_timestamp: null, failed_timestamp: null, pending: true, export_type: 1 });
	first = exportOf(await exportEvent(cast.admin, (e) => exportOf(e, id)?.pending === false), id)!;
	expect(first).toEqual({ ...pending, pending: false, export_url: expect.stringMatching(/^http:\/\/chat\.test\/user_uploads\/exports\/\d+\/[A-Za-z0-9_-]+\/zulip-export-[a-z0-9_-]+\.tar\.gz$/) });
	expect((await events(cast.member)).filter((e) => e.type === "realm_export")).toEqual([]);

	const list = await as(cast.admin).get("/export/realm");
	expectSuccess(list);
	expect(list.body.exports).toEqual([first]);

	// Notification Bot tells the one who asked, as Zulip's deferred_work does.
	const notice = await eventually(
		async () => {
			const dms = await as(cast.admin).get("/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: [{ operator: "is", operand: "dm" }], apply_markdown: false });
			expectSuccess(dms);
			return (dms.body.messages as Ev[]).find((m) => m.sender_email === "notification-bot@zulip.com");
		},
		"the completion message",
	);
	expect(notice.content).toBe("Your data export is complete. [View and download exports](/#organization/data-exports-admin).");

	// The archive: administrators only.
	expect((await download(first.export_url, cast.member)).status).toBe(404);
	expect((await download(first.export_url, null)).status).toBe(401);
	const got = await download(first.export_url, cast.admin);
	expect(got.status).toBe(200);
	expect(got.headers.get("content-type")).toBe("application/gzip");
	archive = Buffer.from(await got.arrayBuffer());
	const files = await untar(archive);
	const dir = new URL(first.export_url).pathname.split("/").pop()!.replace(/\.tar\.gz$/, "");
	const layout = ["analytics.json", "attachment.json", "avatars/records.json", "emoji/records.json", "messages-000001.json", "messages-000002.json", "migration_status.json", "realm.json", "realm_icons/records.json", "stats.json", "uploads/records.json"];
	expect([...files.keys()].sort()).toEqual(layout.map((f) => `${dir}/${f}`));
	// No stored files in a public export, but every records.json Zulip's import opens, empty.
	for (const folder of ["uploads", "emoji", "avatars", "realm_icons"]) expect(JSON.parse(files.get(`${dir}/${folder}/records.json`)!)).toEqual([]);
	// The tables Zulip's import reads whatever the export holds, a public export's included.
	for (const table of ["zerver_realmemoji", "zerver_realmfilter", "zerver_realmplayground", "zerver_realmdomain", "zerver_userpresence", "zerver_useractivity", "zerver_userprofile_mirrordummy"]) {
		expect({ table, list: Array.isArray(JSON.parse(files.get(`${dir}/realm.json`)!)[table]) }).toEqual({ table, list: true });
	}
	const [part1, part2] = [1, 2].map((n) => JSON.parse(files.get(`${dir}/messages-00000${n}.json`)!).zerver_message.map((m: Ev) => m.id as number));
	expect(part1).toHaveLength(1000);
	const all = [...part1, ...part2];
	expect(all).toEqual([...all].sort((a, b) => a - b));
	expect(new Set(all).size).toBe(all.length);

	const realm = JSON.parse(files.get(`${dir}/realm.json`)!);
	expect(realm.zerver_realm).toHaveLength(1);
	const userIds = realm.zerver_userprofile.map((u: Ev) => u.id);
	for (const a of [app.owner, cast.admin, cast.member, cast.member2, cast.guest, hidden]) expect(userIds).toContain(a.user_id);
	for (const u of realm.zerver_userprofile) {
		expect(u).not.toHaveProperty("api_key");
		expect(u).not.toHaveProperty("password");
	}
	// A user who hides their address from administrators is exported with the address the API shows.
	const hiddenRow = realm.zerver_userprofile.find((u: Ev) => u.id === hidden.user_id);
	expect(hiddenRow.delivery_email).toBe(hiddenRow.email);
	expect(hiddenRow.delivery_email).not.toBe(hidden.email);
	const memberRow = realm.zerver_userprofile.find((u: Ev) => u.id === cast.member.user_id);
	expect(memberRow.delivery_email).toBe(cast.member.email);

	// The exports themselves, this one still started, and its REALM_EXPORTED audit entry (206): who asked, which export.
	expect(realm.zerver_realmexport).toEqual([expect.objectContaining({ id, status: 2, acting_user: cast.admin.user_id, type: 1, export_path: null })]);
	expect(realm.zerver_realmauditlog.filter((e: Ev) => e.event_type === 206)).toEqual([
		expect.objectContaining({ realm: realm.zerver_realm[0].id, acting_user: cast.admin.user_id, backfilled: false, extra_data: { realm_export_id: id } }),
	]);
	expect(realm.zerver_realm[0].zulip_update_announcements_level).toBe(11);
	// The operator's can_create_users grant goes with the user; the others have Zulip's default.
	expect(realm.zerver_userprofile.find((u: Ev) => u.id === cast.admin.user_id).can_create_users).toBe(true);
	expect(realm.zerver_userprofile.find((u: Ev) => u.id === app.owner.user_id).can_create_users).toBe(false);
	// The system bots: their recipients are named in zerver_userprofile_crossrealm only, no zerver_recipient row.
	const botIds = new Set(realm.zerver_userprofile_crossrealm.map((b: Ev) => b.id));
	expect(realm.zerver_recipient.filter((r: Ev) => r.type === 1 && botIds.has(r.type_id))).toEqual([]);
	const recipientIds = new Set(realm.zerver_recipient.map((r: Ev) => r.id));
	for (const b of realm.zerver_userprofile_crossrealm) expect({ bot: b.email, clash: recipientIds.has(b.recipient_id) }).toEqual({ bot: b.email, clash: false });
	// The groups, system ones included, and the organization's group settings as their IDs.
	const groupNames = realm.zerver_namedusergroup.map((g: Ev) => g.name);
	expect(groupNames).toEqual(expect.arrayContaining(["role:owners", "role:administrators", "role:members", "role:everyone"]));
	const groupIds = realm.zerver_usergroup.map((g: Ev) => g.id);
	expect(groupIds).toContain(realm.zerver_realm[0].can_create_public_channel_group);
	expect(realm.zerver_userprofile_crossrealm.map((b: Ev) => b.email)).toContain("notification-bot@zulip.com");
	const streams = realm.zerver_stream.map((s: Ev) => s.name);
	expect(streams).toContain(PUBLIC_CHANNEL);
	expect(streams).not.toContain(PRIVATE_CHANNEL);
	const stream = realm.zerver_stream.find((s: Ev) => s.name === PUBLIC_CHANNEL);
	const subscribed = realm.zerver_subscription.filter((s: Ev) => s.recipient === stream.recipient && s.active).map((s: Ev) => s.user_profile);
	expect(subscribed.sort()).toEqual([cast.admin.user_id, cast.member.user_id].sort());
	expect(realm.zerver_recipient).toContainEqual({ id: stream.recipient, type_id: stream.id, type: 2 });

	const messages = JSON.parse(files.get(`${dir}/messages-000001.json`)!);
	const sent = messages.zerver_message.find((m: Ev) => m.content === PUBLIC_TEXT);
	expect(sent).toMatchObject({ sender: cast.member.user_id, recipient: stream.recipient, subject: "plans" });
	expect(realm.zerver_client.map((c: Ev) => c.id)).toContain(sent.sending_client);
	for (const m of messages.zerver_message) expect(realm.zerver_stream.map((s: Ev) => s.recipient)).toContain(m.recipient);

	// Custom profile fields and their values.
	const phone = realm.zerver_customprofilefield.find((f: Ev) => f.name === "Phone");
	expect(phone).toMatchObject({ field_type: 1, realm: realm.zerver_realm[0].id });
	expect(realm.zerver_customprofilefieldvalue).toContainEqual({ id: expect.any(Number), user_profile: cast.member.user_id, field: phone.id, value: "+1 555 0100", rendered_value: null });

	// The public message's reactions, not the private one's; the server's own emoji under Zulip's type name.
	expect(realm.zerver_reaction).toEqual([
		{ id: expect.any(Number), message: sent.id, user_profile: cast.admin.user_id, emoji_name: "tada", emoji_code: "1f389", reaction_type: "unicode_emoji" },
		{ id: expect.any(Number), message: sent.id, user_profile: cast.member.user_id, emoji_name: "zulip", emoji_code: "zulip", reaction_type: "zulip_extra_emoji" },
	]);
	// Channels' group settings are group IDs of the export.
	for (const key of Object.keys(stream).filter((k) => k.endsWith("_group"))) expect(groupIds).toContain(stream[key]);

	// Nothing private anywhere in the archive.
	for (const text of files.values()) {
		expect(text).not.toContain(PRIVATE_CHANNEL);
		expect(text).not.toContain(PRIVATE_TEXT);
		expect(text).not.toContain(DM_TEXT);
		expect(text).not.toContain("octopus");
	}
	const stats = JSON.parse(files.get(`${dir}/stats.json`)!);
	expect(stats.zerver_message).toBe(all.length);
	// The message sent and its 1,100 copies, all of them.
	const texts = [1, 2].flatMap((n) => JSON.parse(files.get(`${dir}/messages-00000${n}.json`)!).zerver_message.map((m: Ev) => m.content as string));
	expect(texts.filter((t) => t === PUBLIC_TEXT)).toHaveLength(1101);
});

test("the archive is a Zulip export this server's importer (import-zulip) takes whole", async () => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-export-"));
	const file = path.join(dir, "export.tar.gz");
	fs.writeFileSync(file, archive);
	const prefix = `x${randomBytes(4).toString("hex")}`;
	try {
		const files = await untar(archive);
		const realm = JSON.parse([...files].find(([name]) => name.endsWith("/realm.json"))![1]);
		const stats = JSON.parse([...files].find(([name]) => name.endsWith("/stats.json"))![1]);
		const result = await importZulip({ source: file, mongoUrl: process.env.TEST_MONGO_URL!, prefix, url: "http://imported.test" });
		expect(result.counts).toMatchObject({
			users: realm.zerver_userprofile.length,
			"user groups": realm.zerver_namedusergroup.length,
			channels: realm.zerver_stream.length,
			subscriptions: realm.zerver_subscription.filter((s: Ev) => realm.zerver_stream.some((c: Ev) => c.recipient === s.recipient)).length,
			messages: stats.zerver_message,
			reactions: realm.zerver_reaction.length,
			"custom profile fields": realm.zerver_customprofilefield.length,
		});
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
		const admin = uploadsDb.getClient().db().admin();
		for (const db of (await admin.listDatabases({ nameOnly: true })).databases) if (db.name.startsWith(`${prefix}_`)) await uploadsDb.getClient().db(db.name).dropDatabase();
	}
});

test("deleting an export: the realm_export event marks it deleted, its URL is gone and so is its file", async () => {
	const record = await uploadsDb.collection("realm_exports").findOne({ _id: first.id as never });
	const fileId = record!.file_id;
	expect(await uploadsDb.collection("files.files").countDocuments({ _id: fileId })).toBe(1);

	expectSuccess(await as(app.owner).delete(`/export/realm/${first.id}`));
	const deleted = exportOf(await exportEvent(cast.admin, (e) => exportOf(e, first.id)?.deleted_timestamp !== null), first.id)!;
	expect(deleted).toEqual({ ...first, export_url: null, deleted_timestamp: expect.any(Number) });
	expect((await as(cast.admin).get("/export/realm")).body.exports).toEqual([deleted]);
	expect((await download(first.export_url, cast.admin)).status).toBe(404);
	expect(await uploadsDb.collection("files.files").countDocuments({ _id: fileId })).toBe(0);
	expect(await uploadsDb.collection("files.chunks").countDocuments({ files_id: fileId })).toBe(0);

	await snap.refused(() => as(cast.admin).delete(`/export/realm/${first.id}`), 400, "BAD_REQUEST", "Export already deleted");
});

test("non-administrators are refused every export endpoint, changing nothing", async () => {
	for (const who of [cast.moderator, cast.member, cast.guest]) {
		await snap.refused(() => as(who).post("/export/realm"), 400, "UNAUTHORIZED_PRINCIPAL", ADMIN_ERROR);
		await snap.refused(() => as(who).post("/export/realm", { export_type: 2 }), 400, "UNAUTHORIZED_PRINCIPAL", ADMIN_ERROR);
		await snap.refused(() => as(who).get("/export/realm"), 400, "UNAUTHORIZED_PRINCIPAL", ADMIN_ERROR);
		await snap.refused(() => as(who).get("/export/realm/consents"), 400, "UNAUTHORIZED_PRINCIPAL", ADMIN_ERROR);
		await snap.refused(() => as(who).delete(`/export/realm/${first.id}`), 400, "UNAUTHORIZED_PRINCIPAL", ADMIN_ERROR);
	}
	await snap.unchanged(async () => {
		const res = await client(app.baseUrl, null).post("/export/realm");
		expect(res.status).toBe(401);
	});
});

test("bad parameters and unknown or undeletable exports get Zulip's errors and change nothing", async () => {
	for (const bad of [0, 3, -1, "public", "1.5", 2 ** 53 + 1, "null", "[1]"]) {
		await snap.unchanged(async () => {
			const res = await as(cast.admin).post("/export/realm", { export_type: bad });
			expect(res.status).toBe(400);
			expect(res.body).toMatchObject({ result: "error", code: "BAD_REQUEST" });
		});
	}
	await snap.refused(() => as(cast.admin).delete("/export/realm/999999"), 400, "BAD_REQUEST", "Invalid data export ID");
	await snap.unchanged(async () => expect((await as(cast.admin).delete("/export/realm/abc")).status).toBe(404));
	for (const huge of [String(2 ** 63), "9007199254740993"]) {
		await snap.unchanged(async () => {
			const res = await as(cast.admin).delete(`/export/realm/${huge}`);
			expect(res.status).toBe(400);
			expect(res.body).toMatchObject({ result: "error", code: "BAD_REQUEST" });
		});
	}
	// export_type in a JSON body.
	await snap.unchanged(async () => expect((await as(cast.admin).post("/export/realm", { export_type: 7 }, { json: true })).body).toMatchObject({ result: "error", code: "BAD_REQUEST", msg: "Invalid export_type" }));

	// An export still in progress, and one that failed (written straight to the store: their states
	// are not reachable on purpose through the API). Requested long ago, so the rate limit ignores them.
	const longAgo = Date.now() - 30 * 24 * 3600 * 1000;
	const far = Date.now() + 24 * 3600 * 1000;
	const base = { realm_id: 1, acting_user_id: cast.admin.user_id, type: 1, date_requested: longAgo, date_started: null, date_succeeded: null, date_deleted: null, progress_at: far, tarball_size_bytes: null, sha256sum_hex: null, stats: null };
	await uploadsDb.collection("realm_exports").insertMany([
		{ _id: 900001 as never, ...base, status: 1, date_failed: null },
		{ _id: 900002 as never, ...base, status: 4, date_failed: longAgo },
	]);
	await snap.refused(() => as(cast.admin).delete("/export/realm/900001"), 400, "BAD_REQUEST", "Export still in progress");
	await snap.refused(() => as(cast.admin).delete("/export/realm/900002"), 400, "BAD_REQUEST", "Export failed, nothing to delete");
	const listed = (await as(cast.admin).get("/export/realm")).body.exports as Ev[];
	expect(listed.find((e) => e.id === 900001)).toMatchObject({ pending: true, export_url: null, failed_timestamp: null });
	expect(listed.find((e) => e.id === 900002)).toMatchObject({ pending: false, export_url: null, failed_timestamp: longAgo / 1000 });
	await uploadsDb.collection("realm_exports").deleteMany({ _id: { $in: [900001, 900002] as never[] } });
});

test("GET /export/realm/consents: each active human user's allow_private_data_export; a change is realm_export_consent to administrators", async () => {
	await events(cast.admin);
	await events(cast.member);
	expectSuccess(await as(cast.member).patch("/settings", { allow_private_data_export: true }));
	const consent = await eventually(async () => (await events(cast.admin)).find((e) => e.type === "realm_export_consent"), "a realm_export_consent event");
	expect(consent).toEqual({ type: "realm_export_consent", user_id: cast.member.user_id, consented: true });
	expect((await events(cast.member)).filter((e) => e.type === "realm_export_consent")).toEqual([]);

	// A new user's consent, and a reactivated one's, are news too (a bot's is not).
	const consentsOf = (userId: number) =>
		eventually(
			async () => {
				const found = (await events(cast.admin)).filter((e) => e.type === "realm_export_consent" && e.user_id === userId);
				return found.length ? found : undefined;
			},
			`realm_export_consent for ${userId}`,
		);
	const newcomer = await app.createUser({ full_name: "Newcomer" });
	expect(await consentsOf(newcomer.user_id)).toEqual([{ type: "realm_export_consent", user_id: newcomer.user_id, consented: false }]);
	expectSuccess(await as(cast.member).patch("/settings", { allow_private_data_export: false }));
	expectSuccess(await as(cast.member).patch("/settings", { allow_private_data_export: true }));
	expectSuccess(await as(cast.admin).delete(`/users/${cast.member.user_id}`));
	await events(cast.admin);
	expectSuccess(await as(cast.admin).post(`/users/${cast.member.user_id}/reactivate`));
	expect(await consentsOf(cast.member.user_id)).toEqual([{ type: "realm_export_consent", user_id: cast.member.user_id, consented: true }]);
	const newBot = await app.createUser({ full_name: "Another Bot", is_bot: true, bot_owner_id: cast.admin.user_id });
	expectSuccess(await as(cast.admin).patch("/settings", { allow_private_data_export: true }));
	const adminOwn = await consentsOf(cast.admin.user_id);
	expect(adminOwn).toEqual([{ type: "realm_export_consent", user_id: cast.admin.user_id, consented: true }]);
	// Read after the administrator's own event, which came after the bot's creation: none for the bot.
	expect((await events(cast.admin)).filter((e) => e.type === "realm_export_consent" && e.user_id === newBot.user_id)).toEqual([]);
	const res = await as(cast.admin).get("/export/realm/consents");
	expectSuccess(res);
	const consents = new Map((res.body.export_consents as Ev[]).map((c) => [c.user_id, c.consented]));
	expect(consents.get(cast.member.user_id)).toBe(true);
	expect(consents.get(cast.member2.user_id)).toBe(false);
	expect(consents.get(app.owner.user_id)).toBe(false);
	expect(consents.has(bot.user_id)).toBe(false);
	for (const c of res.body.export_consents as Ev[]) expect(Object.keys(c).sort()).toEqual(["consented", "user_id"]);
});

test("Zulip's owner rules: a standard export needs a consenting owner, a public one an owner whose address administrators see", async () => {
	await snap.refused(
		() => as(cast.admin).post("/export/realm", { export_type: 2 }),
		400,
		"BAD_REQUEST",
		"Make sure at least one Organization Owner is consenting to the export or contact owner@chat.test for help.",
	);
	expectSuccess(await as(app.owner).patch("/settings", { email_address_visibility: 4 }));
	await snap.refused(
		() => as(cast.admin).post("/export/realm"),
		400,
		"BAD_REQUEST",
		"Make sure at least one Organization Owner allows other Administrators to see their email address or contact owner@chat.test for help",
	);
	expectSuccess(await as(app.owner).patch("/settings", { email_address_visibility: 1, allow_private_data_export: true }));
	const standard = await completedExport(cast.admin, { export_type: 2 });
	expect(standard).toMatchObject({ export_type: 2, pending: false, failed_timestamp: null, export_url: expect.any(String) });
});

test("an organization with more than 20 GiB of uploads is exported by hand: Zulip's error, nothing changed", async () => {
	const { realm_id } = (await uploadsDb.collection("realm_exports").findOne({ _id: first.id as never }))!;
	const usage = uploadsDb.collection("upload_usage");
	const before = await usage.findOne({ _id: realm_id });
	await usage.updateOne({ _id: realm_id }, { $set: { bytes: 20 * 1024 ** 3 + 1 } }, { upsert: true });
	try {
		await snap.refused(() => as(cast.admin).post("/export/realm"), 400, "BAD_REQUEST", "Please request a manual export from owner@chat.test.");
	} finally {
		if (before) await usage.replaceOne({ _id: realm_id }, before);
		else await usage.deleteOne({ _id: realm_id });
	}
});

test("an export that fails is recorded as failed, announced, and leaves no file", async () => {
	// A user row the export cannot read (no date_joined), written straight to the store: the
	// export's reads then fail partway, as a lost service would make them.
	const usersDb = uploadsDb.useDb(`${app.node.config.dbPrefix}_users`);
	const { realm_id } = (await uploadsDb.collection("realm_exports").findOne({ _id: first.id as never }))!;
	const broken = { _id: 990001 as never, realm_id, delivery_email: "broken@chat.test", email_key: "broken@chat.test", full_name: "Broken", role: 400, api_key: "broken-key-990001", is_active: true, is_bot: false, settings: {} };
	await usersDb.collection("users").insertOne(broken);
	const filesBefore = await uploadsDb.collection("files.files").countDocuments({});
	const chunksBefore = await uploadsDb.collection("files.chunks").countDocuments({});
	try {
		const res = await as(cast.admin).post("/export/realm");
		expectSuccess(res);
		const failed = exportOf(await exportEvent(cast.admin, (e) => exportOf(e, res.body.id)?.pending === false), res.body.id)!;
		expect(failed).toEqual({ id: res.body.id, export_time: expect.any(Number), acting_user_id: cast.admin.user_id, export_url: null, deleted_timestamp: null, failed_timestamp: expect.any(Number), pending: false, export_type: 1 });
		expect((await as(cast.admin).get("/export/realm")).body.exports).toContainEqual(failed);
		expect(await uploadsDb.collection("files.files").countDocuments({})).toBe(filesBefore);
		expect(await uploadsDb.collection("files.chunks").countDocuments({})).toBe(chunksBefore);
		await snap.refused(() => as(cast.admin).delete(`/export/realm/${res.body.id}`), 400, "BAD_REQUEST", "Export failed, nothing to delete");
	} finally {
		await usersDb.collection("users").deleteOne({ _id: broken._id });
	}
});

test("an export whose worker died (no progress for STALE_MS) is failed by the sweep, its partial file removed, and announced", async () => {
	const { realm_id } = (await uploadsDb.collection("realm_exports").findOne({ _id: first.id as never }))!;
	const store = new FileStore(uploadsDb);
	const fileId = FileStore.newId();
	await store.writeChunk(fileId, 0, Buffer.from("a partial archive"));
	const longAgo = Date.now() - 30 * 24 * 3600 * 1000;
	await uploadsDb.collection("realm_exports").insertOne({
		_id: 900003 as never,
		realm_id,
		acting_user_id: cast.admin.user_id,
		type: 1,
		status: 2,
		date_requested: longAgo,
		date_started: longAgo,
		date_succeeded: null,
		date_failed: null,
		date_deleted: null,
		progress_at: Date.now() - STALE_MS - 1000,
		file_id: fileId,
		tarball_size_bytes: null,
		sha256sum_hex: null,
		stats: null,
	});
	// The sweep each uploads replica runs every minute, run here at once.
	const deps = { Export: realmExportModel(uploadsDb), store, bus: app.node.broker, logger: { info() {}, warn() {}, error() {} }, siteUrl: "http://chat.test" } as unknown as ExportDeps;
	expect(await failStalled(deps)).toBe(1);
	const failed = exportOf(await exportEvent(cast.admin, (e) => exportOf(e, 900003)?.failed_timestamp != null), 900003)!;
	expect(failed).toMatchObject({ pending: false, export_url: null, failed_timestamp: expect.any(Number), deleted_timestamp: null });
	expect(await uploadsDb.collection("files.chunks").countDocuments({ files_id: fileId })).toBe(0);
	// Already failed: a second sweep leaves it.
	expect(await failStalled(deps)).toBe(0);
	await uploadsDb.collection("realm_exports").deleteOne({ _id: 900003 as never });
});

test("the rate limit: five exports a week, then Zulip's 'Exceeded rate limit.', changing nothing", async () => {
	// Every export requested this week counts, deleted and failed ones too.
	const sofar = ((await as(cast.admin).get("/export/realm")).body.exports as Ev[]).length;
	expect(sofar).toBeLessThan(5);
	for (let i = sofar; i < 5; i++) await completedExport(i % 2 ? app.owner : cast.admin);
	expect((await as(cast.admin).get("/export/realm")).body.exports).toHaveLength(5);
	await snap.refused(() => as(cast.admin).post("/export/realm"), 400, "BAD_REQUEST", "Exceeded rate limit.");
	await snap.refused(() => as(app.owner).post("/export/realm", { export_type: 2 }), 400, "BAD_REQUEST", "Exceeded rate limit.");
});
