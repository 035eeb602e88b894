// The round trip out to Zulip's format and back, as an operator runs it: Zulip's sample export is
// imported into prefix A (`import-zulip`), a server runs on A, `export-zulip` writes A as a Zulip
// export, which is imported into a fresh prefix B, and a server on B serves it. Everything both
// servers show through the API is then compared: every user, channel (private ones too), user
// group, subscription with its settings, each user's messages (content, topic, sender, time,
// flags, reactions, edit history), direct messages, alert words, muted users, topics, statuses,
// custom emoji, linkifiers, profile fields, and every stored file byte for byte.
//
// What does not round-trip, and why (the README's "Moving in from Zulip" lists the same):
//   - API keys: exports hold no credentials, so each import gives every user a new key;
//   - avatar and organization-image URLs: the images are stored again under new random names
//     (the bytes are the same, checked below);
//   - a scheduled message delivered (or failed) on A is exported as such: B does not send it again;
//   - recipient IDs (the server's numbering of conversations, as Zulip's Recipient) are numbered
//     anew by an import, as Zulip's import numbers them: checked to name the same conversations;
//   - the order of a user's topics (user_topics), which the API does not define: compared sorted.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { isIP } from "node:net";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { freePort } from "../../shared/store";
import { client, expectSuccess, type Client } from "../support/http";
import { sendMultipart, stillImage } from "../support/images";
import { manage } from "../support/manage";
import { startServerNode, waitFor, type Proc } from "../support/processes";
import { AuditEvent, REQUIRED_TABLES } from "../../shared/zulip-format/zulip-import-tables";

jest.setTimeout(600_000);

const ROOT = path.resolve(__dirname, "../..");
const SAMPLE = path.resolve(ROOT, "test/fixtures/zulip-export-fl339.tar.gz");

type Row = Record<string, any>;

/** A JSON file of an export's archive, wherever its one folder is. */
const readJson = (file: string, name: string): any => JSON.parse(execFileSync("tar", ["xzf", file, "-O", "--wildcards", `*/${name}`], { maxBuffer: 256 << 20 }).toString());
/** The archive's files, without its one folder, but the stored files themselves (records.json names those). */
const layout = (file: string) =>
	execFileSync("tar", ["tzf", file]).toString().trim().split("\n").map((n) => n.replace(/^[^/]+\//, "")).filter((n) => /^[^/]+\.json$|^[^/]+\/records\.json$/.test(n));
/** Whether Django's validate_email, which Zulip's import runs on both of each user's addresses, accepts `address`. */
function djangoAcceptsAddress(address: string): boolean {
	const at = address.lastIndexOf("@");
	const [local, domain] = [address.slice(0, at), address.slice(at + 1)];
	const dotAtom = /^[-!#$%&'*+/=?^_`{}|~0-9A-Z]+(\.[-!#$%&'*+/=?^_`{}|~0-9A-Z]+)*$/i;
	const name = /^((?:[A-Z0-9](?:[A-Z0-9-]{0,61}[A-Z0-9])?\.)+)(?:[A-Z0-9-]{2,63}(?<!-))$/i;
	const literal = /^\[([A-F0-9:.]+)\]$/i.exec(domain);
	return at > 0 && dotAtom.test(local) && (domain === "localhost" || name.test(domain) || (literal !== null && isIP(literal[1]) !== 0));
}
/** A JSON value's type, as Zulip's import would see it (a number whatever its kind). */
const jsonType = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
type Keys = Map<number, { email: string; api_key: string }>;

/** What a server shows of the organization, keyed so two servers' answers can be compared. */
interface Snapshot {
	users: Row[];
	channels: Row[];
	groups: Row[];
	emoji: Row[];
	linkifiers: Row[];
	profileFields: Row[];
	/** Each active user's own state (subscriptions, alert words, muted users, topics, settings) and messages. */
	perUser: Map<number, { state: Row; messages: Row[] }>;
	/** Stored files' bytes by URL path: uploads, custom emoji, avatars. */
	files: Map<string, Buffer>;
}

/** The fields an answer holds that differ between two servers by design: see the file's head. */
function withoutVolatile(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(withoutVolatile);
	if (!value || typeof value !== "object") return value;
	const out: Row = {};
	for (const [k, v] of Object.entries(value)) {
		if (["avatar_url", "queue_id", "last_event_id", "server_generation", "zulip_merge_base", "realm_icon_url", "realm_logo_url", "realm_night_logo_url"].includes(k)) continue;
		out[k] = withoutVolatile(v);
	}
	return out;
}

const byId = (key: string) => (a: Row, b: Row) => a[key] - b[key];

async function snapshot(base: string, keys: Keys, ownerId: number): Promise<Snapshot> {
	const as = (id: number): Client => client(base, keys.get(id));
	const owner = as(ownerId);
	const get = async (c: Client, url: string, params: Row = {}) => {
		const res = await c.get(url, params);
		expectSuccess(res);
		return res.body;
	};
	const users = ((await get(owner, "/users", { include_custom_profile_fields: true })).members as Row[]).sort(byId("user_id"));
	const channels = ((await get(owner, "/streams", { include_all: true, exclude_archived: false })).streams as Row[]).sort(byId("stream_id"));
	const groups = ((await get(owner, "/user_groups", { include_deactivated_groups: true })).user_groups as Row[]).sort(byId("id"));
	const emoji = Object.values((await get(owner, "/realm/emoji")).emoji as Record<string, Row>).sort((a, b) => Number(a.id) - Number(b.id));
	const linkifiers = (await get(owner, "/realm/linkifiers")).linkifiers as Row[];
	const profileFields = (await get(owner, "/realm/profile_fields")).custom_fields as Row[];

	const perUser: Snapshot["perUser"] = new Map();
	for (const u of users.filter((x) => x.is_active)) {
		const c = as(u.user_id);
		const state = await c.post("/register", {
			fetch_event_types: JSON.stringify(["realm", "realm_playgrounds", "subscription", "alert_words", "muted_users", "user_topic", "user_settings", "user_status", "scheduled_messages", "message"]),
		});
		expectSuccess(state);
		(state.body.user_topics as Row[]).sort((x, y) => x.stream_id - y.stream_id || (x.topic_name < y.topic_name ? -1 : x.topic_name > y.topic_name ? 1 : 0));
		const messages = ((await get(c, "/messages", { anchor: "oldest", num_before: 0, num_after: 5000, apply_markdown: true, allow_empty_topic_name: true })).messages as Row[]).map((m) => ({
			...m,
			flags: [...m.flags].sort(),
			reactions: (m.reactions as Row[]).map((r) => `${r.user_id}:${r.emoji_code}:${r.reaction_type}`).sort(),
		}));
		perUser.set(u.user_id, { state: state.body, messages });
	}

	const files = new Map<string, Buffer>();
	const origin = new URL(base).origin;
	const auth = (id: number) => ({ Authorization: `Basic ${Buffer.from(`${keys.get(id)!.email}:${keys.get(id)!.api_key}`).toString("base64")}` });
	const fetchBytes = async (url: string, headers: Record<string, string> = {}) => {
		const res = await fetch(`${origin}${url}`, { headers });
		expect({ url, status: res.status }).toEqual({ url, status: 200 });
		return Buffer.from(await res.arrayBuffer());
	};
	for (const e of emoji) files.set(`emoji ${e.name}`, await fetchBytes(e.source_url));
	for (const u of users.filter((x) => x.is_active)) {
		const { attachments } = await get(as(u.user_id), "/attachments");
		for (const a of attachments as Row[]) files.set(`upload ${a.path_id}`, await fetchBytes(`/user_uploads/${a.path_id}`, auth(u.user_id)));
	}
	for (const u of users) {
		if (typeof u.avatar_url === "string" && u.avatar_url.startsWith("/user_avatars/")) files.set(`avatar ${u.user_id}`, await fetchBytes(u.avatar_url));
	}
	const icon = perUser.get(ownerId)!.state.realm_icon_url as string;
	if (icon.startsWith("/user_avatars/")) files.set("realm icon", await fetchBytes(icon.replace(/\?.*$/, "")));
	return { users, channels, groups, emoji, linkifiers, profileFields, perUser, files };
}

describe("a Zulip export round-trips: import, export-zulip, import again", () => {
	let work: string;
	let env: Record<string, string>;
	let server: Proc | undefined;
	let base: string;
	let ownerId: number;
	let a: Snapshot;
	let b: Snapshot;
	let exported: { code: number; stdout: string; stderr: string };
	let archive: string;
	let notKept: string;

	const readKeys = (file: string): Keys => new Map((JSON.parse(fs.readFileSync(file, "utf8")) as Row[]).map((c) => [c.user_id, { email: c.email, api_key: c.api_key }]));

	async function serve(prefix: string): Promise<void> {
		server = startServerNode({ ...env, DB_PREFIX: prefix, PORT: new URL(base).port, HOST: "127.0.0.1", RATE_LIMIT: "0" });
		await waitFor(async () => (await fetch(`${base}/server_settings`).catch(() => null))?.status === 200, "the server", 120_000);
	}

	beforeAll(async () => {
		work = fs.mkdtempSync(path.join(os.tmpdir(), "chat-round-trip-"));
		const port = await freePort();
		base = `http://127.0.0.1:${port}/api/v1`;
		// One store (the embedded one of DATA_DIR) holds both prefixes; one server runs at a time.
		env = { MONGO_URL: "", TRANSPORTER: "", SERVICES: "", DATA_DIR: path.join(work, "data"), STORE_PORT: String(await freePort()), EXTERNAL_URL: `http://127.0.0.1:${port}`, CI: "1" };
		const prefixA = `ra${randomBytes(4).toString("hex")}`;
		const prefixB = `rb${randomBytes(4).toString("hex")}`;

		const imported = await manage({ ...env, DB_PREFIX: prefixA }, ["import-zulip", SAMPLE, "--credentials", path.join(work, "a.json")]);
		expect(imported).toMatchObject({ code: 0, stderr: "" });
		const keysA = readKeys(path.join(work, "a.json"));
		await serve(prefixA);
		const realm = JSON.parse(execFileSync("tar", ["xzf", SAMPLE, "-O", "--wildcards", "*/realm.json"], { maxBuffer: 64 << 20 }).toString()) as Record<string, Row[]>;
		ownerId = realm.zerver_userprofile.find((u) => u.role === 100 && !u.is_bot && u.is_active)!.id;
		// The sample's scheduled messages are past due: A sends them first; the export holds them sent.
		await waitFor(async () => {
			for (const id of new Set(realm.zerver_scheduledmessage.map((s) => s.sender as number))) {
				if (!keysA.has(id)) continue;
				const res = await client(base, keysA.get(id)).get("/scheduled_messages");
				// Those that cannot be sent stay listed, failed.
				if ((res.body.scheduled_messages as Row[]).some((m) => !m.failed)) return false;
			}
			return true;
		}, "A's scheduled messages sent");
		// What the sample lacks, made on A through the API: a group DM with a custom emoji reaction,
		// a muted user, a code playground, an uploaded avatar and organization icon.
		const ownerA = { user_id: ownerId, email: keysA.get(ownerId)!.email, api_key: keysA.get(ownerId)!.api_key };
		const owner = client(base, ownerA);
		const others = realm.zerver_userprofile.filter((u) => u.is_active && !u.is_bot && u.id !== ownerId && keysA.has(u.id)).slice(0, 2).map((u) => u.id as number);
		const sent = await owner.post("/messages", { type: "direct", to: JSON.stringify(others), content: "Three of us" });
		expectSuccess(sent);
		expectSuccess(await owner.post(`/users/me/muted_users/${others[0]}`));
		expectSuccess(await owner.post("/realm/playgrounds", { name: "Python", pygments_language: "Python", url_template: "https://python.example/?code={code}" }));
		const image = { name: "me.png", bytes: await stillImage(64, 64, "png"), type: "image/png" };
		expect((await sendMultipart({ baseUrl: base }, ownerA, "POST", "/users/me/avatar", { files: [image] })).status).toBe(200);
		expect((await sendMultipart({ baseUrl: base }, ownerA, "POST", "/realm/icon", { files: [image] })).status).toBe(200);
		expect((await sendMultipart({ baseUrl: base }, ownerA, "POST", "/realm/emoji/round_trip", { files: [image] })).status).toBe(200);
		const custom = Object.values((await owner.get("/realm/emoji")).body.emoji as Record<string, Row>).find((e) => e.name === "round_trip")!;
		expectSuccess(await owner.post(`/messages/${sent.body.id}/reactions`, { emoji_name: "round_trip", emoji_code: String(custom.id), reaction_type: "realm_emoji" }));
		a = await snapshot(base, keysA, ownerId);

		// Exported while A's server runs, as an operator would.
		archive = path.join(work, "team.tar.gz");
		exported = await manage({ ...env, DB_PREFIX: prefixA }, ["export-zulip", archive]);
		expect(exported).toMatchObject({ code: 0, stderr: "" });
		await server?.stop();
		server = undefined;

		const again = await manage({ ...env, DB_PREFIX: prefixB }, ["import-zulip", archive, "--credentials", path.join(work, "b.json")]);
		expect(again).toMatchObject({ code: 0, stderr: "" });
		// Everything the export holds has a place here but the fields of feature level 339's rows this
		// server keeps nothing of (written with Zulip's defaults), as for the sample itself.
		notKept = again.stdout.split("Not kept (this server has no place for it):\n")[1]?.split("\nEach user's")[0] ?? "";
		await serve(prefixB);
		b = await snapshot(base, readKeys(path.join(work, "b.json")), ownerId);
	});

	afterAll(async () => {
		await server?.stop();
		if (work) fs.rmSync(work, { recursive: true, force: true });
	});

	test("the export has Zulip's layout: realm.json, message files, attachment.json, the file folders with records.json, stats.json", () => {
		const names = execFileSync("tar", ["tzf", archive]).toString().trim().split("\n");
		for (const f of ["team/realm.json", "team/messages-000001.json", "team/attachment.json", "team/stats.json", "team/uploads/records.json", "team/emoji/records.json", "team/avatars/records.json", "team/realm_icons/records.json"]) {
			expect(names).toContain(f);
		}
		expect(exported.stdout).toMatch(/^ {2}zerver_usermessage: [1-9]\d*$/m);
	});

	test("the export holds every file and folder the sample holds, and every table of each of its files", () => {
		expect(layout(archive).sort()).toEqual(expect.arrayContaining(layout(SAMPLE).sort()));
		for (const name of ["realm.json", "attachment.json", "messages-000001.json", "analytics.json"]) {
			const ours = Object.keys(readJson(archive, name));
			for (const table of Object.keys(readJson(SAMPLE, name))) expect({ name, table, present: ours.includes(table) }).toEqual({ name, table, present: true });
		}
		// Zulip's import refuses an export whose migrations differ from the importing server's: the export names feature level 339's.
		expect(readJson(archive, "migration_status.json")).toEqual(readJson(SAMPLE, "migration_status.json"));
	});

	test("what Zulip's import requires: its unconditional tables, the rows it relies on, the fields of the file records it reads", () => {
		const realm = readJson(archive, "realm.json") as Record<string, Row[]>;
		for (const table of REQUIRED_TABLES) expect({ table, list: Array.isArray(realm[table]) }).toEqual({ table, list: true });
		expect(realm.zerver_presencesequence).toEqual([expect.objectContaining({ realm: realm.zerver_realm[0].id, last_update_id: 0 })]);
		expect(realm.zerver_realmauthenticationmethod.map((m) => m.name)).toEqual(["Email"]);
		expect(realm.zerver_realmuserdefault).toEqual([expect.objectContaining({ realm: realm.zerver_realm[0].id, dense_mode: true, enter_sends: false })]);
		const created = realm.zerver_realmauditlog.filter((e) => e.event_type === AuditEvent.REALM_CREATED);
		expect(created).toEqual([expect.objectContaining({ event_time: realm.zerver_realm[0].date_created, backfilled: true })]);
		// A subscription_created entry per channel subscription, as Zulip's import makes for an export without an audit log.
		const channelRecipients = new Set(realm.zerver_recipient.filter((r) => r.type === 2).map((r) => r.id));
		const channelSubs = realm.zerver_subscription.filter((s) => channelRecipients.has(s.recipient));
		expect(realm.zerver_realmauditlog.filter((e) => e.event_type === AuditEvent.SUBSCRIPTION_CREATED).length).toBe(channelSubs.length);
		const left = channelSubs.filter((sub) => !sub.active);
		expect(left.length).toBeGreaterThan(0);
		expect(realm.zerver_realmauditlog.filter((e) => e.event_type === AuditEvent.SUBSCRIPTION_DEACTIVATED).map((e) => [e.modified_user, e.modified_stream])).toEqual(
			left.map((sub) => [sub.user_profile, realm.zerver_recipient.find((r) => r.id === sub.recipient)!.type_id]),
		);
		expect(realm.import_source).toBe("zulip");
		// Every user's addresses pass Zulip's validation; the dummy addresses name this test's server, at an IP address and a port.
		const addresses = realm.zerver_userprofile.flatMap((u) => [u.email, u.delivery_email] as string[]);
		expect(addresses.some((a) => a.includes("@[127.0.0.1]"))).toBe(true);
		expect(addresses.filter((a) => !djangoAcceptsAddress(a))).toEqual([]);
		// Each avatar is placed by its user's avatar version; each attachment by its upload's record.
		const avatars = readJson(archive, "avatars/records.json") as Row[];
		expect(avatars.length).toBeGreaterThan(0);
		for (const r of avatars) expect(Object.keys(r)).toEqual(expect.arrayContaining(["user_profile_id", "realm_id", "avatar_version", "path", "s3_path"]));
		const uploads = new Set((readJson(archive, "uploads/records.json") as Row[]).map((r) => r.s3_path));
		for (const a of readJson(archive, "attachment.json").zerver_attachment as Row[]) expect({ path_id: a.path_id, uploaded: uploads.has(a.path_id) }).toEqual({ path_id: a.path_id, uploaded: true });
		for (const table of ["analytics_realmcount", "analytics_usercount", "analytics_streamcount"]) expect(readJson(archive, "analytics.json")[table]).toEqual([]);
		// Each upload's record names its owner (remapped as user_profile_id).
		for (const r of readJson(archive, "uploads/records.json") as Row[]) expect({ path: r.path, owner: typeof r.user_profile_id }).toEqual({ path: r.path, owner: "number" });
		// A realm emoji in a reaction or status is looked up by its ID, and its name must match the emoji's.
		const emojiNames = new Map(realm.zerver_realmemoji.map((e) => [String(e.id), e.name]));
		const realmEmojiUses = [...realm.zerver_reaction, ...realm.zerver_userstatus].filter((r) => r.reaction_type === "realm_emoji");
		expect(realmEmojiUses.length).toBeGreaterThan(0);
		for (const r of realmEmojiUses) expect({ code: r.emoji_code, name: emojiNames.get(r.emoji_code) }).toEqual({ code: r.emoji_code, name: r.emoji_name });
		// Each edit's user is remapped (a user the export holds), and a content edit's rendering is read with it.
		const userIds = new Set(realm.zerver_userprofile.map((u) => u.id));
		const messages = readJson(archive, "messages-000001.json").zerver_message as Row[];
		const edits = messages.flatMap((m) => (m.edit_history ? (JSON.parse(m.edit_history) as Row[]) : []));
		// Each attachment's messages are looked up among the exported ones; each subscriber's activity among the users and system bots.
		const messageIds = new Set(messages.map((m) => m.id));
		for (const a of readJson(archive, "attachment.json").zerver_attachment as Row[]) for (const id of a.messages as number[]) expect({ attachment: a.id, message: id, exported: messageIds.has(id) }).toEqual({ attachment: a.id, message: id, exported: true });
		const bots = new Set(realm.zerver_userprofile_crossrealm.map((b) => b.id));
		expect(realm.zerver_subscription.filter((sub) => !userIds.has(sub.user_profile) && !bots.has(sub.user_profile))).toEqual([]);
		expect(edits.some((e) => "prev_content" in e)).toBe(true);
		for (const e of edits) {
			expect({ user: e.user_id, known: userIds.has(e.user_id) }).toEqual({ user: e.user_id, known: true });
			if ("prev_content" in e) expect(e).toHaveProperty("prev_rendered_content");
		}
	});

	test("each field holds the JSON types the sample's holds", () => {
		const typesOf = (tables: Record<string, Row[]>) => {
			const out = new Map<string, Set<string>>();
			for (const [table, rows] of Object.entries(tables)) {
				if (!Array.isArray(rows)) continue;
				for (const row of rows) for (const [field, v] of Object.entries(row)) {
					const key = `${table}.${field}`;
					if (!out.has(key)) out.set(key, new Set());
					out.get(key)!.add(jsonType(v));
				}
			}
			return out;
		};
		let compared = 0;
		const unlike: string[] = [];
		for (const name of ["realm.json", "attachment.json", "messages-000001.json"]) {
			const sample = typesOf(readJson(SAMPLE, name));
			for (const [key, types] of typesOf(readJson(archive, name))) {
				const theirs = sample.get(key);
				// A field the sample never fills (always null, or no rows) shows nothing of its type.
				if (!theirs || [...theirs].every((t) => t === "null")) continue;
				for (const t of types) if (t !== "null" && !theirs.has(t)) unlike.push(`${key}: ${t}, the sample's ${[...theirs].join("/")}`);
				compared++;
			}
		}
		expect(unlike).toEqual([]);
		expect(compared).toBeGreaterThan(300);
	});

	test("the re-import keeps everything but the feature level 339 fields this server has no place for, and the export's own audit entry", () => {
		const lines = notKept.split("\n");
		expect(lines.length).toBeGreaterThan(0);
		for (const line of lines) expect(line).toMatch(/^ {2}(zerver_realm +\d+ {2}settings with no place here: |zerver_userprofile +\d+ {2}fields with no place here: |zerver_realmauditlog +1 {2}the organization's audit log)/);
	});

	test("what a real Zulip import (import_realm.py) maps: system bots, permissions, the announcements level, the export's audit entry, edit history, times", () => {
		const realm = readJson(archive, "realm.json") as Record<string, Row[]>;
		const sample = readJson(SAMPLE, "realm.json") as Record<string, Row[]>;
		const files = layout(archive).filter((n) => /^messages-\d+\.json$/.test(n)).map((n) => readJson(archive, n) as Record<string, Row[]>);
		const messages = files.flatMap((f) => f.zerver_message);
		const userMessages = files.flatMap((f) => f.zerver_usermessage);
		// Cross-realm bots: named in zerver_userprofile_crossrealm with a recipient of their own that
		// no zerver_recipient row holds (the import maps it onto its own bot's); no per-user rows.
		const bots = realm.zerver_userprofile_crossrealm;
		expect(bots.map((b) => b.email).sort()).toEqual(["notification-bot@zulip.com", "welcome-bot@zulip.com"]);
		const botIds = new Set(bots.map((b) => b.id as number));
		const botRecipients = new Set(bots.map((b) => b.recipient_id as number));
		expect(realm.zerver_recipient.filter((r) => r.type === 1 && botIds.has(r.type_id))).toEqual([]);
		expect(realm.zerver_recipient.filter((r) => botRecipients.has(r.id))).toEqual([]);
		expect(userMessages.filter((r) => botIds.has(r.user_profile))).toEqual([]);
		// No duplicate recipient (the unique (type, type_id) index Zulip's import inserts into) nor per-user row.
		const pairs = realm.zerver_recipient.map((r) => `${r.type}:${r.type_id}`);
		expect(pairs.length - new Set(pairs).size).toBe(0);
		const rows = userMessages.map((r) => `${r.user_profile}:${r.message}`);
		expect(rows.length - new Set(rows).size).toBe(0);
		// Messages sent by a bot name it as sender (the sample's Welcome Bot's); each message's recipient is a row's
		// or a bot's (this server refuses direct messages to its system bots, so none names a bot's here).
		const recipientIds = new Set(realm.zerver_recipient.map((r) => r.id as number));
		expect(messages.filter((m) => !recipientIds.has(m.recipient) && !botRecipients.has(m.recipient))).toEqual([]);
		expect(messages.some((m) => botIds.has(m.sender))).toBe(true);

		// can_create_users, the operator's grant, is carried both ways: each sample user's as the sample has it.
		const granted = new Map(sample.zerver_userprofile.map((u) => [u.id as number, u.can_create_users]));
		const carried = realm.zerver_userprofile.filter((u) => granted.has(u.id as number));
		expect(carried.length).toBe(sample.zerver_userprofile.length);
		expect(carried.filter((u) => u.can_create_users !== granted.get(u.id as number))).toEqual([]);

		// The announcements level of an organization on a feature level 339 server, as the sample's.
		expect(realm.zerver_realm[0].zulip_update_announcements_level).toBe(11);
		expect(realm.zerver_realm[0].zulip_update_announcements_level).toBe(sample.zerver_realm[0].zulip_update_announcements_level);
		// The export's REALM_EXPORTED entry (the management CLI's: no acting user, no export row), a real event.
		const exportedRows = realm.zerver_realmauditlog.filter((e) => e.event_type === AuditEvent.REALM_EXPORTED);
		expect(exportedRows).toEqual([expect.objectContaining({ realm: realm.zerver_realm[0].id, acting_user: null, modified_user: null, backfilled: false, extra_data: {} })]);
		expect(exportedRows[0].event_time).toBeGreaterThan(realm.zerver_realm[0].date_created);

		// Edit history: each previous rendering with its Markdown version; the sample's entries as they were.
		const edits = messages.flatMap((m) => (m.edit_history ? (JSON.parse(m.edit_history) as Row[]) : []));
		const rendered = edits.filter((e) => "prev_rendered_content" in e);
		expect(rendered.length).toBeGreaterThan(0);
		expect(rendered.filter((e) => typeof e.prev_rendered_content_version !== "number")).toEqual([]);
		// Times keep their microseconds: the sample's messages (imported with their IDs) carry its date_sent and
		// last_edit_time exactly; one sent on A carries its milliseconds.
		const sampleMessages = new Map((readJson(SAMPLE, "messages-000001.json").zerver_message as Row[]).map((m) => [m.id as number, m]));
		const fromSample = messages.filter((m) => sampleMessages.has(m.id));
		expect(fromSample.length).toBe(sampleMessages.size);
		expect(fromSample.filter((m) => !Number.isInteger(m.date_sent)).length).toBeGreaterThan(0);
		const versions = (history: string | null) => (history ? (JSON.parse(history) as Row[]).map((e) => [e.timestamp, e.prev_rendered_content_version ?? null]) : null);
		for (const m of fromSample) {
			const theirs = sampleMessages.get(m.id)!;
			expect({ id: m.id, date_sent: m.date_sent, last_edit_time: m.last_edit_time, versions: versions(m.edit_history) }).toEqual({
				id: m.id,
				date_sent: theirs.date_sent,
				last_edit_time: theirs.last_edit_time,
				versions: versions(theirs.edit_history),
			});
		}
		// One sent on A: its time to the millisecond (not a whole second, but for one time in a thousand).
		const threeOfUs = messages.find((m) => m.content === "Three of us")!;
		expect(threeOfUs.date_sent * 1000).toBeCloseTo(Math.round(threeOfUs.date_sent * 1000), 3);
		// The users' times as this server keeps them (milliseconds): the sample's date_joined to the millisecond.
		const sampleJoined = new Map(sample.zerver_userprofile.map((u) => [u.id as number, u.date_joined as number]));
		const joined = realm.zerver_userprofile.filter((u) => sampleJoined.has(u.id));
		expect(joined.length).toBeGreaterThan(200);
		for (const u of joined) expect({ id: u.id, ms: Math.round(u.date_joined * 1000) }).toEqual({ id: u.id, ms: Math.floor(sampleJoined.get(u.id)! * 1000) });
	});

	test("each table's rows have the fields of the sample's rows (feature level 339); what is newer is a table of its own", () => {
		const read = (file: string, name: string) => JSON.parse(execFileSync("tar", ["xzf", file, "-O", "--wildcards", `*/${name}`], { maxBuffer: 256 << 20 }).toString()) as Record<string, Row[]>;
		const fieldsOf = (rows: Row[]) => [...new Set(rows.flatMap((r) => Object.keys(r)))].sort();
		let compared = 0;
		for (const name of ["realm.json", "attachment.json", "messages-000001.json"]) {
			const sample = read(SAMPLE, name);
			const ours = read(archive, name);
			for (const [table, rows] of Object.entries(sample)) {
				if (!rows.length || !ours[table]?.length) continue;
				expect({ table, fields: fieldsOf(ours[table]) }).toEqual({ table, fields: fieldsOf(rows) });
				compared++;
			}
		}
		expect(compared).toBeGreaterThanOrEqual(25);
	});

	test("every row holds the date fields Zulip's import converts (its DATE_FIELDS), as the sample's rows do", () => {
		const read = (name: string) => JSON.parse(execFileSync("tar", ["xzf", archive, "-O", `team/${name}`], { maxBuffer: 256 << 20 }).toString()) as Record<string, Row[]>;
		const tables = { ...read("realm.json"), ...read("attachment.json"), ...read("messages-000001.json") };
		const dateFields: Record<string, string[]> = {
			zerver_attachment: ["create_time"],
			zerver_message: ["last_edit_time", "date_sent"],
			zerver_muteduser: ["date_muted"],
			zerver_realm: ["date_created"],
			zerver_realmexport: ["date_requested", "date_started", "date_succeeded", "date_failed", "date_deleted"],
			zerver_scheduledmessage: ["scheduled_timestamp"],
			zerver_stream: ["date_created"],
			zerver_namedusergroup: ["date_created"],
			zerver_userprofile: ["date_joined", "last_login", "last_reminder"],
			zerver_userstatus: ["timestamp"],
			zerver_usertopic: ["last_updated"],
		};
		for (const [table, fields] of Object.entries(dateFields)) {
			// A made no data export of its own (the sample's are not imported): its table is empty.
			if (table !== "zerver_realmexport") expect({ table, rows: tables[table]?.length ?? 0 }).not.toEqual({ table, rows: 0 });
			for (const row of tables[table]) for (const f of fields) expect({ table, id: row.id, field: f, present: Object.hasOwn(row, f) }).toEqual({ table, id: row.id, field: f, present: true });
		}
	});

	test("every user, with their role, settings and profile field values", () => {
		expect(withoutVolatile(b.users)).toEqual(withoutVolatile(a.users));
		expect(a.users.length).toBeGreaterThan(200);
	});

	test("every channel, private ones too, with their settings; user groups; emoji, linkifiers, profile fields", () => {
		expect(b.channels).toEqual(a.channels);
		expect(a.channels.some((c) => c.invite_only)).toBe(true);
		expect(b.perUser.get(ownerId)!.state.realm_playgrounds).toEqual([expect.objectContaining({ name: "Python" })]);
		expect(b.groups).toEqual(a.groups);
		expect(withoutVolatile(b.emoji)).toEqual(withoutVolatile(a.emoji));
		expect(b.linkifiers).toEqual(a.linkifiers);
		expect(b.profileFields).toEqual(a.profileFields);
	});

	test("each user's subscriptions, alert words, muted users, topics, settings and status", () => {
		expect([...b.perUser.keys()]).toEqual([...a.perUser.keys()]);
		for (const [id, { state }] of a.perUser) {
			expect({ id, state: withoutVolatile(b.perUser.get(id)!.state) }).toEqual({ id, state: withoutVolatile(state) });
		}
	});

	test("each user's messages: content, topic, sender, time, flags, reactions, edit history; direct messages too", () => {
		let direct = 0;
		let flagged = 0;
		// A's recipient ID -> B's, and back: the same conversations, numbered anew.
		const there = new Map<number, number>();
		const back = new Map<number, number>();
		const recipientless = (list: Row[]) => list.map(({ recipient_id: _, ...m }) => m);
		for (const [id, { messages }] of a.perUser) {
			const theirs = b.perUser.get(id)!.messages;
			expect({ id, messages: withoutVolatile(recipientless(theirs)) }).toEqual({ id, messages: withoutVolatile(recipientless(messages)) });
			messages.forEach((m, i) => {
				const other = theirs[i].recipient_id as number;
				expect([there.get(m.recipient_id) ?? other, back.get(other) ?? m.recipient_id]).toEqual([other, m.recipient_id]);
				there.set(m.recipient_id, other);
				back.set(other, m.recipient_id);
			});
			direct += messages.filter((m) => m.type === "private").length;
			flagged += messages.filter((m) => m.flags.includes("starred")).length;
		}
		expect(direct).toBeGreaterThan(0);
		expect(a.perUser.get(ownerId)!.messages.some((m) => m.type === "private" && m.display_recipient.length === 3)).toBe(true);
		expect(flagged).toBeGreaterThan(0);
	});

	test("every stored file, byte for byte: uploads, custom emoji, avatars", () => {
		expect([...b.files.keys()].sort()).toEqual([...a.files.keys()].sort());
		for (const kind of ["upload ", "emoji ", "avatar ", "realm icon"]) expect({ kind, found: [...a.files.keys()].some((k) => k.startsWith(kind)) }).toEqual({ kind, found: true });
		for (const [key, bytes] of a.files) expect({ key, same: b.files.get(key)!.equals(bytes) }).toEqual({ key, same: true });
	});
});
