// `npm run manage -- import-zulip` run as an operator runs it, on Zulip's own export of a test
// organization (feature level 339), into a database prefix no server has used; then the server
// started on that prefix serves the organization, and everything the export holds is checked
// through the API against the export's own records: users (roles, bots and their owners),
// channels, subscriptions, messages with each user's flags, reactions, custom emoji and the
// uploaded file's bytes. A malformed export fails with the file and record named, and leaves the
// prefix as empty as it found it (a second import into it succeeds).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { freePort } from "../../shared/store";
import { client, expectSuccess, type Client } from "../support/http";
import { manage, scratchManageEnv, type Run } from "../support/manage";
import { startServerNode, waitFor, type Proc } from "../support/processes";

jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, "../..");
const SAMPLE = path.resolve(ROOT, "test/fixtures/zulip-export-fl339.tar.gz");

type Row = Record<string, any>;

/** The sample, unpacked, as the test's oracle. */
function readSample(into: string): { dir: string; realm: Record<string, Row[]>; messages: Record<string, Row[]> } {
	execFileSync("tar", ["xzf", SAMPLE, "-C", into]);
	const dir = path.join(into, fs.readdirSync(into).find((d) => fs.existsSync(path.join(into, d, "realm.json")))!);
	return { dir, realm: JSON.parse(fs.readFileSync(path.join(dir, "realm.json"), "utf8")), messages: JSON.parse(fs.readFileSync(path.join(dir, "messages-000001.json"), "utf8")) };
}

// Zulip's flag bits this server shows, by bit.
const FLAGS: Record<number, string> = { 0: "read", 1: "starred", 3: "mentioned", 9: "has_alert_word", 10: "historical" };

describe("import-zulip of Zulip's sample export", () => {
	let work: string;
	let sample: ReturnType<typeof readSample>;
	let env: Record<string, string>;
	let server: Proc | undefined;
	let base: string;
	let imported: Run;
	let keys: Map<number, { email: string; api_key: string }>;
	const as = (userId: number): Client => client(base, keys.get(userId));
	/** Zulip's ID of a cross-realm bot → its address (they become this server's system bots). */
	let crossRealm: Map<number, string>;

	beforeAll(async () => {
		work = fs.mkdtempSync(path.join(os.tmpdir(), "chat-import-"));
		sample = readSample(fs.mkdtempSync(path.join(work, "sample-")));
		const port = await freePort();
		env = { MONGO_URL: "", TRANSPORTER: "", SERVICES: "", DATA_DIR: path.join(work, "data"), STORE_PORT: String(await freePort()), DB_PREFIX: `i${randomBytes(4).toString("hex")}`, CI: "1" };
		imported = await manage({ ...env, EXTERNAL_URL: `http://127.0.0.1:${port}` }, ["import-zulip", SAMPLE, "--credentials", path.join(work, "credentials.json")]);
		expect(imported).toMatchObject({ code: 0, stderr: "" });
		keys = new Map((JSON.parse(fs.readFileSync(path.join(work, "credentials.json"), "utf8")) as Row[]).map((c) => [c.user_id, { email: c.email, api_key: c.api_key }]));
		crossRealm = new Map(sample.realm.zerver_userprofile_crossrealm.map((u) => [u.id, u.email]));

		server = startServerNode({ ...env, PORT: String(port), HOST: "127.0.0.1", EXTERNAL_URL: `http://127.0.0.1:${port}`, RATE_LIMIT: "0" });
		base = `http://127.0.0.1:${port}/api/v1`;
		await waitFor(async () => (await fetch(`${base}/server_settings`).catch(() => null))?.status === 200, "the server", 120_000);
	});

	afterAll(async () => {
		await server?.stop();
		if (work) fs.rmSync(work, { recursive: true, force: true });
	});

	const owner = () => sample.realm.zerver_userprofile.find((u) => u.role === 100 && !u.is_bot)!;

	test("every user keeps their role, name and address; bots keep their owners; each has a working new API key", async () => {
		const users = await as(owner().id).get("/users", { include_custom_profile_fields: false });
		expectSuccess(users);
		const byId = new Map((users.body.members as Row[]).map((u) => [u.user_id, u]));
		for (const u of sample.realm.zerver_userprofile) {
			expect({ id: u.id, ...byId.get(u.id) }).toMatchObject({ id: u.id, full_name: u.full_name, role: u.role, is_bot: u.is_bot, is_active: u.is_active, ...(u.is_bot ? { bot_owner_id: u.bot_owner } : {}) });
		}
		expect(keys.size).toBe(sample.realm.zerver_userprofile.length);
		const bot = sample.realm.zerver_userprofile.find((u) => u.is_bot && u.is_active)!;
		const me = await as(bot.id).get("/users/me");
		expectSuccess(me);
		expect(me.body).toMatchObject({ user_id: bot.id, is_bot: true });
	});

	test("the organization keeps its name, description and settings", async () => {
		const realm = sample.realm.zerver_realm[0];
		const state = await as(owner().id).post("/register", { fetch_event_types: JSON.stringify(["realm"]) });
		expectSuccess(state);
		expect(state.body).toMatchObject({
			realm_name: realm.name,
			realm_description: realm.description,
			realm_invite_required: realm.invite_required,
			realm_allow_message_editing: realm.allow_message_editing,
			realm_message_content_edit_limit_seconds: realm.message_content_edit_limit_seconds,
			realm_can_add_custom_emoji_group: realm.can_add_custom_emoji_group,
		});
	});

	test("user groups keep their names, members and subgroups", async () => {
		const users = new Set(sample.realm.zerver_userprofile.map((u) => u.id));
		const res = await as(owner().id).get("/user_groups", { include_deactivated_groups: true });
		expectSuccess(res);
		const byId = new Map((res.body.user_groups as Row[]).map((g) => [g.id, g]));
		for (const g of sample.realm.zerver_namedusergroup.filter((x) => !x.is_system_group)) {
			// Rows naming users the export does not hold are left out (and reported).
			const members = sample.realm.zerver_usergroupmembership.filter((m) => m.user_group === g.id && users.has(m.user_profile)).map((m) => m.user_profile);
			const subgroups = sample.realm.zerver_groupgroupmembership.filter((m) => m.supergroup === g.id).map((m) => m.subgroup);
			const got = byId.get(g.id)!;
			expect({ name: got.name, members: [...got.members].sort(), subgroups: [...got.direct_subgroup_ids].sort() }).toEqual({ name: g.name, members: members.sort(), subgroups: subgroups.sort() });
		}
		const system = (res.body.user_groups as Row[]).filter((g) => g.is_system_group).map((g) => g.name);
		expect(system.sort()).toEqual(sample.realm.zerver_namedusergroup.filter((x) => x.is_system_group).map((x) => x.name).sort());
	});

	test("channels keep their names, privacy and descriptions; subscriptions their colour, pin and muting", async () => {
		const ownerId = owner().id;
		const recipients = new Map(sample.realm.zerver_recipient.filter((r) => r.type === 2).map((r) => [r.id, r.type_id]));
		const streams = new Map(sample.realm.zerver_stream.map((s) => [s.id, s]));
		const subs = await as(ownerId).get("/users/me/subscriptions");
		expectSuccess(subs);
		const got = new Map((subs.body.subscriptions as Row[]).map((s) => [s.stream_id, s]));
		// Archived channels are left out of the list, as Zulip leaves them out for clients that do not ask for them.
		const expected = sample.realm.zerver_subscription.filter((s) => s.user_profile === ownerId && s.active && recipients.has(s.recipient) && !streams.get(recipients.get(s.recipient)!)!.deactivated);
		expect(expected.length).toBeGreaterThan(3);
		expect([...got.keys()].sort()).toEqual(expected.map((s) => recipients.get(s.recipient)).sort());
		for (const s of expected) {
			const channel = streams.get(recipients.get(s.recipient)!)!;
			expect(got.get(channel.id)).toMatchObject({
				name: channel.name,
				invite_only: channel.invite_only,
				description: channel.description,
				color: s.color,
				pin_to_top: s.pin_to_top,
				is_muted: s.is_muted,
			});
		}
		// Every channel, public and private, as an administrator lists them.
		const all = await as(ownerId).get("/streams", { include_all: true, exclude_archived: false });
		expectSuccess(all);
		for (const c of all.body.streams as Row[]) expect({ id: c.stream_id, name: c.name, invite_only: c.invite_only }).toEqual({ id: c.stream_id, name: streams.get(c.stream_id)?.name, invite_only: streams.get(c.stream_id)?.invite_only });
		expect((all.body.streams as Row[]).some((c) => c.invite_only)).toBe(true);
	});

	test("messages keep content, topic, sender, time and each user's read and starred flags, with their reactions", async () => {
		const messages = new Map(sample.messages.zerver_message.map((m) => [m.id, m]));
		const senderOf = (id: number) => crossRealm.get(id) ?? id;
		for (const userId of [owner().id, sample.realm.zerver_userprofile.find((u) => u.role === 200)!.id]) {
			const rows = sample.messages.zerver_usermessage.filter((r) => r.user_profile === userId);
			const res = await as(userId).get("/messages", { anchor: "oldest", num_before: 0, num_after: 1000, apply_markdown: true, allow_empty_topic_name: true });
			expectSuccess(res);
			// Scheduled messages past their time are sent once the server runs (as Zulip sends them); one
			// more than ten minutes late is not, and Notification Bot tells its sender so, naming its time
			// (Zulip's SCHEDULED_MESSAGE_LATE_CUTOFF_MINUTES). The sample's times are fixed, so which of
			// the two comes depends on the day the test runs; either may still be on its way.
			const sent = (res.body.messages as Row[]).filter((m) => !messages.has(m.id));
			const theirs = sample.realm.zerver_scheduledmessage.filter((x) => x.sender === userId) as Row[];
			const failureOf = (x: Row) => `<p>The message you scheduled for <time datetime="${new Date(x.scheduled_timestamp * 1000).toISOString().replace(/\.\d{3}Z$/, "Z")}">`;
			const late = (x: Row) => x.scheduled_timestamp + 10 * 60 < Date.now() / 1000;
			for (const m of sent) expect(theirs.some((x) => (late(x) ? m.content.startsWith(failureOf(x)) : m.content === x.rendered_content))).toBe(true);
			const got = (res.body.messages as Row[]).filter((m) => messages.has(m.id));
			expect(got.map((m) => m.id)).toEqual(rows.map((r) => r.message).sort((a, b) => a - b));
			const byId = new Map(got.map((m) => [m.id, m]));
			for (const r of rows) {
				const m = messages.get(r.message)!;
				const g = byId.get(r.message)!;
				const sender = senderOf(m.sender);
				expect({ id: m.id, content: g.content, subject: g.subject, timestamp: g.timestamp }).toEqual({ id: m.id, content: m.rendered_content, subject: m.subject, timestamp: Math.floor(m.date_sent) });
				if (typeof sender === "number") expect(g.sender_id).toBe(sender);
				else expect(g.sender_email).toBe(sender);
				const flags = Object.entries(FLAGS)
					.filter(([bit]) => r.flags_mask & (1 << Number(bit)))
					.map(([, f]) => f);
				expect({ id: m.id, flags: [...g.flags].filter((f: string) => f in { read: 1, starred: 1 }).sort() }).toEqual({ id: m.id, flags: flags.filter((f) => f === "read" || f === "starred").sort() });
				const reactions = sample.realm.zerver_reaction.filter((x) => x.message === m.id);
				expect((g.reactions as Row[]).map((x) => x.emoji_code).sort()).toEqual(reactions.map((x) => x.emoji_code).sort());
			}
		}
		// Something of each was checked.
		expect(sample.messages.zerver_usermessage.some((r) => r.user_profile === owner().id && r.flags_mask & 2)).toBe(true);
	});

	test("custom emoji and the uploaded file are served byte for byte", async () => {
		const ownerKey = keys.get(owner().id)!;
		const auth = { Authorization: `Basic ${Buffer.from(`${ownerKey.email}:${ownerKey.api_key}`).toString("base64")}` };
		const emoji = await as(owner().id).get("/realm/emoji");
		expectSuccess(emoji);
		const listed = Object.values(emoji.body.emoji as Record<string, Row>);
		expect(listed.map((e) => Number(e.id)).sort()).toEqual(sample.realm.zerver_realmemoji.map((e) => e.id).sort());
		const origin = new URL(base).origin;
		for (const e of sample.realm.zerver_realmemoji) {
			const shown = listed.find((x) => Number(x.id) === e.id)!;
			expect(shown).toMatchObject({ name: e.name, deactivated: e.deactivated });
			const res = await fetch(`${origin}${shown.source_url}`);
			expect(res.status).toBe(200);
			expect(Buffer.from(await res.arrayBuffer()).equals(fs.readFileSync(path.join(sample.dir, "emoji", `${sample.realm.zerver_realm[0].id}/emoji/images/${e.file_name}`)))).toBe(true);
		}
		const attachments = JSON.parse(fs.readFileSync(path.join(sample.dir, "attachment.json"), "utf8")).zerver_attachment as Row[];
		expect(attachments.length).toBeGreaterThan(0);
		for (const a of attachments) {
			const res = await fetch(`${origin}/user_uploads/${a.path_id}`, { headers: auth });
			expect(res.status).toBe(200);
			expect(Buffer.from(await res.arrayBuffer()).equals(fs.readFileSync(path.join(sample.dir, "uploads", a.path_id)))).toBe(true);
		}
	});

	test("custom profile fields and users' values are kept", async () => {
		const fields = await as(owner().id).get("/realm/profile_fields");
		expectSuccess(fields);
		expect((fields.body.custom_fields as Row[]).map((f) => [f.id, f.name, f.type])).toEqual(
			[...sample.realm.zerver_customprofilefield].sort((a, b) => a.order - b.order || a.id - b.id).map((f) => [f.id, f.name, f.field_type]),
		);
		for (const v of sample.realm.zerver_customprofilefieldvalue) {
			const user = await as(owner().id).get(`/users/${v.user_profile}`, { include_custom_profile_fields: true });
			expectSuccess(user);
			expect(user.body.user.profile_data[String(v.field)]).toMatchObject({ value: v.value });
		}
	});

	test("user statuses and bots' storage are kept", async () => {
		for (const st of sample.realm.zerver_userstatus) {
			const res = await as(owner().id).get(`/users/${st.user_profile}/status`);
			expectSuccess(res);
			expect(res.body.status).toMatchObject({ status_text: st.status_text, emoji_name: st.emoji_name, emoji_code: st.emoji_code });
		}
		const bots = new Set(sample.realm.zerver_botstoragedata.map((e) => e.bot_profile));
		for (const bot of bots) {
			const res = await as(bot).get("/bot_storage");
			expectSuccess(res);
			expect(res.body.storage).toEqual(Object.fromEntries(sample.realm.zerver_botstoragedata.filter((e) => e.bot_profile === bot).map((e) => [e.key, e.value])));
		}
	});

	test("the report lists what is not kept, by table and count", () => {
		const line = (table: string, n: number) => new RegExp(`^  ${table} +${n}  `, "m");
		expect(imported.stdout).toMatch(line("zerver_realmauditlog", sample.realm.zerver_realmauditlog.length));
		expect(imported.stdout).toMatch(line("zerver_useractivity", sample.realm.zerver_useractivity.length));
		// The tables this server's own export rebuilds are reported for what they hold beyond this server's: sign-in
		// methods but email, the defaults for new users that differ, a presence counter that has moved.
		expect(imported.stdout).toMatch(line("zerver_realmauthenticationmethod", sample.realm.zerver_realmauthenticationmethod.length - 1));
		expect(imported.stdout).toMatch(/^ {2}zerver_realmuserdefault +2 .*: dense_mode, user_list_style$/m);
		expect(imported.stdout).toMatch(line("zerver_presencesequence", 1));
		expect(imported.stdout).toMatch(/^ {2}messages: 739$/m);
		expect(imported.stdout).toMatch(/^ {2}per-user message rows: 11235$/m);
		expect(imported.stdout).toMatch(new RegExp(`^ {2}scheduled messages: ${sample.realm.zerver_scheduledmessage.length}$`, "m"));
	});
});

describe("import-zulip of a malformed export", () => {
	let work: string;
	let env: Record<string, string>;

	let scratch: Awaited<ReturnType<typeof scratchManageEnv>> | undefined;

	beforeAll(async () => {
		scratch = await scratchManageEnv("import-bad");
		({ work, env } = scratch);
	});

	afterAll(() => scratch?.remove());

	test("bad arguments answer the usage line", async () => {
		const run = await manage(env, ["import-zulip"]);
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(/^import-zulip: missing the export .*\nusage: npm run manage -- import-zulip /);
	});

	test("a truncated tarball fails naming it, and a realm.json with a bad record fails naming the record; the prefix stays empty", async () => {
		const bytes = fs.readFileSync(SAMPLE);
		const truncated = path.join(work, "truncated.tar.gz");
		fs.writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
		const cut = await manage(env, ["import-zulip", truncated]);
		expect(cut.code).toBe(1);
		expect(cut.stderr).toMatch(/^Import failed, nothing was kept: truncated\.tar\.gz: the tarball is truncated or corrupt/);

		// A channel whose name is not a string: found after users and groups were written.
		const sample = readSample(fs.mkdtempSync(path.join(work, "sample-")));
		const realm = JSON.parse(fs.readFileSync(path.join(sample.dir, "realm.json"), "utf8"));
		const bad = realm.zerver_stream[3];
		bad.name = 42;
		fs.writeFileSync(path.join(sample.dir, "realm.json"), JSON.stringify(realm));
		const failed = await manage(env, ["import-zulip", sample.dir]);
		expect(failed.code).toBe(1);
		expect(failed.stderr).toBe(`Import failed, nothing was kept: realm.json, zerver_stream[3] (id ${bad.id}): "name" must be a string, not 42\n`);

		// A message with no content, in a messages file: found after everything but the messages was written.
		fs.writeFileSync(path.join(sample.dir, "realm.json"), JSON.stringify({ ...realm, zerver_stream: realm.zerver_stream.map((c: Row) => (c === bad ? { ...c, name: "fixed" } : c)) }));
		const messages = JSON.parse(fs.readFileSync(path.join(sample.dir, "messages-000001.json"), "utf8"));
		const broken = messages.zerver_message[500];
		delete broken.content;
		fs.writeFileSync(path.join(sample.dir, "messages-000001.json"), JSON.stringify(messages));
		const noContent = await manage(env, ["import-zulip", sample.dir]);
		expect(noContent.code).toBe(1);
		expect(noContent.stderr).toBe(`Import failed, nothing was kept: messages-000001.json, zerver_message[500] (id ${broken.id}): "content" must be a string, not missing\n`);

		// Nothing was left: the same prefix takes the good export.
		const ok = await manage(env, ["import-zulip", SAMPLE, "--credentials", path.join(work, "credentials.json")]);
		expect(ok).toMatchObject({ code: 0, stderr: "" });
		// And an import into a prefix that holds an organization is refused.
		const again = await manage(env, ["import-zulip", SAMPLE, "--credentials", path.join(work, "credentials.json")]);
		expect(again.code).toBe(1);
		expect(again.stderr).toMatch(/already holds data .*set DB_PREFIX to a new one/);
	});
});

describe("import-zulip of an export with an uploaded avatar", () => {
	let work: string;
	let server: Proc | undefined;

	afterAll(async () => {
		await server?.stop();
		if (work) fs.rmSync(work, { recursive: true, force: true });
	});

	test("the user's original image is served byte for byte, with the small image made from it; the organization's icon too; a custom emoji inside a message points to where the emoji is kept", async () => {
		work = fs.mkdtempSync(path.join(os.tmpdir(), "chat-import-avatar-"));
		const sample = readSample(fs.mkdtempSync(path.join(work, "sample-")));
		// Zulip's layout: avatars/<realm>/<hash>.original beside its thumbnails, named in records.json.
		const realmId = sample.realm.zerver_realm[0].id;
		const user = sample.realm.zerver_userprofile.find((u) => u.role === 400 && !u.is_bot)!;
		const image = fs.readFileSync(path.join(sample.dir, "emoji", `${realmId}/emoji/images/${sample.realm.zerver_realmemoji[0].file_name}.original`));
		fs.mkdirSync(path.join(sample.dir, "avatars", String(realmId)), { recursive: true });
		fs.writeFileSync(path.join(sample.dir, "avatars", `${realmId}/abc123.original`), image);
		const record = { realm_id: realmId, user_profile_id: user.id, user_profile_email: user.email, s3_path: `${realmId}/abc123.original`, path: `${realmId}/abc123.original`, content_type: "image/jpeg" };
		fs.writeFileSync(path.join(sample.dir, "avatars", "records.json"), JSON.stringify([record]));
		// An uploaded organization icon: realm_icons/<realm>/realm/icon.original, with icon_source "U".
		fs.mkdirSync(path.join(sample.dir, "realm_icons", `${realmId}/realm`), { recursive: true });
		fs.writeFileSync(path.join(sample.dir, "realm_icons", `${realmId}/realm/icon.original`), image);
		fs.writeFileSync(path.join(sample.dir, "realm_icons", "records.json"), JSON.stringify([{ realm_id: realmId, path: `${realmId}/realm/icon.original`, s3_path: `${realmId}/realm/icon.original` }]));
		Object.assign(sample.realm.zerver_realm[0], { icon_source: "U", icon_version: 3 });
		fs.writeFileSync(path.join(sample.dir, "realm.json"), JSON.stringify(sample.realm));
		// A custom emoji inside a message names Zulip's realm ID in its image's path.
		const emoji = sample.realm.zerver_realmemoji[0];
		const seen = sample.messages.zerver_usermessage.find((r) => r.user_profile === user.id)!;
		const withEmoji = sample.messages.zerver_message.find((m) => m.id === seen.message)!;
		withEmoji.rendered_content = `<p><img alt=":${emoji.name}:" class="emoji" src="/user_avatars/${realmId}/emoji/images/${emoji.file_name}" title="${emoji.name}"></p>`;
		fs.writeFileSync(path.join(sample.dir, "messages-000001.json"), JSON.stringify(sample.messages));

		const port = await freePort();
		const env = { MONGO_URL: "", TRANSPORTER: "", SERVICES: "", DATA_DIR: path.join(work, "data"), STORE_PORT: String(await freePort()), DB_PREFIX: `a${randomBytes(4).toString("hex")}`, CI: "1" };
		const run = await manage({ ...env, EXTERNAL_URL: `http://127.0.0.1:${port}` }, ["import-zulip", sample.dir, "--credentials", path.join(work, "credentials.json")]);
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toMatch(/^ {2}uploaded avatars: 1$/m);
		expect(run.stdout).toMatch(/^ {2}organization icon and logos: 1$/m);
		const key = (JSON.parse(fs.readFileSync(path.join(work, "credentials.json"), "utf8")) as Row[]).find((c) => c.user_id === user.id)!;

		server = startServerNode({ ...env, PORT: String(port), HOST: "127.0.0.1", EXTERNAL_URL: `http://127.0.0.1:${port}`, RATE_LIMIT: "0" });
		const base = `http://127.0.0.1:${port}/api/v1`;
		await waitFor(async () => (await fetch(`${base}/server_settings`).catch(() => null))?.status === 200, "the server", 120_000);
		const me = await client(base, { email: key.email, api_key: key.api_key }).get(`/users/${user.id}`, { client_gravatar: false });
		expectSuccess(me);
		const url = new URL(me.body.user.avatar_url as string, base);
		expect(url.pathname).toMatch(/^\/user_avatars\/1\/\w+\.png$/);
		const small = await fetch(url);
		expect({ status: small.status, type: small.headers.get("content-type") }).toEqual({ status: 200, type: "image/png" });
		const original = await fetch(new URL(url.pathname.replace(/\.png$/, ".original"), base));
		expect(original.status).toBe(200);
		expect(Buffer.from(await original.arrayBuffer()).equals(image)).toBe(true);

		// The organization's icon, its version carried over.
		const state = await client(base, { email: key.email, api_key: key.api_key }).post("/register", { fetch_event_types: JSON.stringify(["realm"]) });
		expectSuccess(state);
		expect(state.body.realm_icon_source).toBe("U");
		const icon = new URL(state.body.realm_icon_url as string, base);
		expect(`${icon.pathname}${icon.search}`).toMatch(/^\/user_avatars\/1\/realm\/icon-\w+\.png\?version=3$/);
		expect((await fetch(icon)).headers.get("content-type")).toBe("image/png");
		const iconOriginal = await fetch(new URL(icon.pathname.replace(/\.png$/, ".original"), base));
		expect(Buffer.from(await iconOriginal.arrayBuffer()).equals(image)).toBe(true);

		// The emoji's image is where this organization keeps it, and is served there.
		const shown = await client(base, { email: key.email, api_key: key.api_key }).get(`/messages/${withEmoji.id}`);
		expectSuccess(shown);
		const src = /src="([^"]+)"/.exec(shown.body.message.content as string)![1];
		expect(src).toBe(`/user_avatars/1/emoji/images/${emoji.file_name}`);
		expect((await fetch(new URL(src, base))).status).toBe(200);
	});
});
