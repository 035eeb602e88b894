// The full export's source (shared/zulip-format/source.ts): everything the server keeps,
// read straight from each service's database.
//
// Decision (how the command reaches the data): `export-zulip` reads the service databases
// directly, through the services' own models (deploy/service-dbs.ts), as the importer writes
// them, rather than through the services' actions. The actions answer the public export (a
// running server's uploads service calls them) and check a caller; a full export reads what no
// caller may read through the API (every user's flags, direct messages, private channels, settings),
// and a command that needs no running server nor bus is one an operator can run on a stopped
// server or its backup. Where the services have a function that turns their documents into the
// export's rows (export-data.ts in users, channels, messages), it is called here with the models:
// one place for each mapping; the rest (small per-user tables, files) is read here.
import { exportRealm, exportUsers } from "../../services/users/realm-export/export-data";
import { graphData } from "../../services/users/groups/user-group-rules";
import type { UsersReads } from "../../services/users/db";
import { USER_SETTINGS, canonicalSetting } from "../../services/users/settings/user-settings";
import { exportChannels, exportSubscriptions } from "../../services/channels/export-data";
import { exportMessages, exportReactions, exportUserMessages } from "../../services/messages/export-data";
import type { ExportSource, ExportFile, FullExtras, GroupDetails } from "../../shared/zulip-format/source";
import { REALM_IMAGE_KINDS, realmImagePath } from "../../shared/zulip-format/realm-table";
import { avatarImagePaths } from "../../shared/public-images";
import type { ExportRealm, ExportUser } from "../../shared/export-rows";
import type { RealmDoc } from "../../services/users/models/realm";
import type { Models } from "../service-dbs";

const IMAGE_PAGE = 100;

export interface DatabaseSource {
	realm: ExportRealm;
	source: ExportSource;
}

/** The organization of the database prefix (one per prefix), and the full source over it. */
export async function databaseSource(m: Models): Promise<DatabaseSource> {
	const realmDoc = await m.Realm.findOne({}).sort({ _id: 1 }).lean();
	if (!realmDoc) throw new Error("this database prefix holds no organization: set DB_PREFIX to the server's");
	const realmId = realmDoc._id;
	const users: UsersReads = { User: m.User, UserGroup: m.UserGroup, ProfileField: m.ProfileField, realm: realmDoc };
	const realm = await exportRealm(users);

	const withPrivate = async (page: ExportUser[]): Promise<ExportUser[]> => {
		const docs = new Map((await m.User.find({ _id: { $in: page.map((u) => u.id) } }).lean()).map((d) => [d._id, d]));
		return page.map((u) => {
			const d = docs.get(u.id)!;
			const settings = Object.fromEntries(Object.entries(USER_SETTINGS).map(([name, def]) => [name, canonicalSetting(def, d.settings?.[name] ?? def.default)]));
			return {
				...u,
				private: {
					settings,
					can_change_user_emails: d.can_change_user_emails ?? false,
					default_sending_stream_id: d.default_sending_stream_id ?? null,
					default_events_register_stream_id: d.default_events_register_stream_id ?? null,
					default_all_public_streams: d.default_all_public_streams ?? false,
					bot_service: d.bot_service ?? null,
					bot_config: d.bot_config ?? null,
				},
			};
		});
	};

	const source: ExportSource = {
		users: async (after, limit) => withPrivate(await exportUsers(users, after, limit)),
		channels: () => exportChannels({ Channel: m.Channel, realmId }, true),
		subscriptions: (ids) => exportSubscriptions({ Subscription: m.Subscription }, ids),
		async messages(_channelIds, after, limit) {
			// Every message: the channels a full export holds are all of them, and direct messages too.
			const messages = await exportMessages({ Message: m.Message }, "all", after, limit);
			return { messages, reactions: messages.length ? await exportReactions({ Reaction: m.Reaction }, messages.map((x) => x.id)) : [] };
		},
		groupGraph: () => graphData(users),
		full: {
			userMessages: (ids) => exportUserMessages({ UserMessage: m.UserMessage }, ids),
			groupDetails: async () => {
				const groups = await m.UserGroup.find({ realm_id: realmId }).lean();
				return new Map<number, GroupDetails>(groups.map((g) => [g._id, { description: g.description, creator_id: g.creator_id, date_created: g.date_created, settings: g.settings ?? {} }]));
			},
			extras: () => extras(m, realmId, realmDoc.images ?? {}),
			files: () => files(m, realmId, realmDoc.images ?? {}),
		},
	};
	return { realm, source };
}

/** Sorts rows by the values `key` gives, in order (an ID, or a user's ID and then the row's). */
const byKey =
	<T>(key: (row: T) => Array<number | string>) =>
	(rows: T[]): T[] =>
		rows.sort((a, b) => {
			const [x, y] = [key(a), key(b)];
			for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
			return 0;
		});

async function extras(m: Models, realmId: number, images: RealmDoc["images"]): Promise<FullExtras> {
	const userIds = (await m.User.find({ realm_id: realmId }, { _id: 1 }).lean()).map((u) => u._id);
	const [topics, muted, words, statuses, storage, linkifiers, playgrounds, emoji, scheduled, attachments] = await Promise.all([
		// Read through the indexes that serve these filters, ordered here: the rows are all in memory anyway.
		m.UserTopic.find({ user_id: { $in: userIds } }).lean().then(byKey((t) => [t.user_id, t._id])),
		m.MutedUser.find({ user_id: { $in: userIds } }).sort({ user_id: 1, muted_user_id: 1 }).lean(),
		m.AlertWords.find({ _id: { $in: userIds } }).sort({ _id: 1 }).lean(),
		m.UserStatus.find({ realm_id: realmId }).lean().then(byKey((x) => [x._id])),
		m.BotStorage.find({ bot_id: { $in: userIds } }).sort({ bot_id: 1, key: 1 }).lean(),
		m.Linkifier.find({ realm_id: realmId }).sort({ order: 1, _id: 1 }).lean(),
		m.Playground.find({ realm_id: realmId }).sort({ _id: 1 }).lean(),
		m.RealmEmoji.find({ realm_id: realmId }).sort({ _id: 1 }).lean(),
		m.ScheduledMessage.find({ sender_id: { $in: userIds } }).lean().then(byKey((x) => [x._id])),
		m.Attachment.find({ realm_id: realmId }).sort({ _id: 1 }).lean(),
	]);
	return {
		user_topics: topics.map((t) => ({ user_id: t.user_id, channel_id: t.channel_id, topic: t.topic, visibility_policy: t.visibility_policy, last_updated: t.last_updated })),
		muted_users: muted.map((x) => ({ user_id: x.user_id, muted_user_id: x.muted_user_id, date_muted: x.date_muted })),
		alert_words: words.map((w) => ({ user_id: w._id, words: w.words })),
		user_statuses: statuses.map((s) => ({
			user_id: s._id,
			status_text: s.status_text,
			emoji_name: s.emoji_name,
			emoji_code: s.emoji_code,
			reaction_type: s.reaction_type,
			timestamp: s.timestamp.getTime() / 1000,
		})),
		bot_storage: storage.map((b) => ({ bot_id: b.bot_id, key: b.key, value: b.value })),
		linkifiers: linkifiers.map((l) => ({ id: l._id, pattern: l.pattern, url_template: l.url_template, order: l.order })),
		playgrounds: playgrounds.map((p) => ({ id: p._id, name: p.name, pygments_language: p.pygments_language, url_template: p.url_template })),
		emoji: emoji.map((e) => ({ id: e._id, name: e.name, author_id: e.author_id, file_name: e.file_name, is_animated: e.is_animated, deactivated: e.deactivated })),
		scheduled: scheduled.map((s) => ({
			id: s._id,
			sender_id: s.sender_id,
			to: s.to,
			topic: s.topic,
			content: s.content,
			rendered_content: s.rendered_content,
			scheduled_timestamp: s.scheduled_timestamp,
			read_by_sender: s.read_by_sender,
			// One being sent right now is still to be sent, as far as the export knows.
			state: s.state === "delivered" || s.state === "failed" ? s.state : "scheduled",
			failure_message: s.failure_message,
			delivered_message_id: s.delivered_message_id,
		})),
		attachments: attachments.map((a) => ({
			id: a._id,
			path_id: a.path_id,
			file_name: a.file_name,
			size: a.size,
			content_type: a.content_type,
			owner_id: a.owner_id,
			create_time: a.create_time / 1000,
			message_ids: a.messages.map((c) => c.id),
			is_realm_public: a.messages.some((c) => c.is_realm_public),
			is_web_public: a.messages.some((c) => c.is_web_public),
		})),
		realm_images: Object.fromEntries(REALM_IMAGE_KINDS.filter((k) => images?.[k]?.path).map((k) => [k, { version: images![k]!.changes + 1 }])),
	};
}

/** The stored files, read one at a time through the uploads service's store. */
async function* files(m: Models, realmId: number, images: RealmDoc["images"]): AsyncGenerator<ExportFile> {
	for (let after = 0; ; ) {
		const page = await m.Attachment.find({ realm_id: realmId, _id: { $gt: after } }).sort({ _id: 1 }).limit(IMAGE_PAGE).lean();
		for (const a of page) {
			yield { folder: "uploads", path: a.path_id, bytes: await m.store.readAll(a.file_id), content_type: a.content_type, last_modified: a.create_time / 1000, user_id: a.owner_id };
		}
		if (page.length < IMAGE_PAGE) break;
		after = page[page.length - 1]._id;
	}

	// Custom emoji: every stored image under the organization's emoji path, named for its emoji.
	const emoji = await m.RealmEmoji.find({ realm_id: realmId }).lean();
	const byFile = new Map(emoji.map((e) => [e.file_name.replace(/\.[^.]*$/, ""), e]));
	const emojiPrefix = `${realmId}/emoji/images/`;
	for (const image of await m.Images.find({ _id: { $regex: `^${realmId}/emoji/images/` } }).sort({ _id: 1 }).lean()) {
		const rest = image._id.slice(emojiPrefix.length).replace(/^still\//, "");
		const e = byFile.get(rest.replace(/\..*$/, ""));
		if (!e) continue;
		yield {
			folder: "emoji",
			path: image._id,
			bytes: await m.store.readAll(image.file_id),
			content_type: image.content_type,
			last_modified: image.stored / 1000,
			user_id: e.author_id,
			emoji: { name: e.name, file_name: e.file_name, deactivated: e.deactivated },
		};
	}

	// Uploaded avatars: the original and both sizes, under the avatar's own path.
	for await (const u of m.User.find({ realm_id: realmId, avatar_source: "U", avatar_path: { $exists: true } }, { _id: 1, avatar_path: 1 }).sort({ _id: 1 }).lean().cursor()) {
		const paths = avatarImagePaths(u.avatar_path!);
		for (const image of await m.Images.find({ _id: { $in: [paths.original, paths.small, paths.medium] } }).sort({ _id: 1 }).lean()) {
			yield { folder: "avatars", path: image._id, bytes: await m.store.readAll(image.file_id), content_type: image.content_type, last_modified: image.stored / 1000, user_id: u._id };
		}
	}

	// The icon and logos: the original and the shown image, under Zulip's names (`<realm>/realm/icon.png`).
	for (const kind of REALM_IMAGE_KINDS) {
		const shown = images?.[kind]?.path;
		if (!shown) continue;
		const base = shown.replace(/\.png$/, "");
		for (const [stored, named] of [
			[`${base}.original`, realmImagePath(realmId, kind, "original")],
			[shown, realmImagePath(realmId, kind, "png")],
		]) {
			const image = await m.Images.findById(stored).lean();
			if (!image) continue;
			yield { folder: "realm_icons", path: named, bytes: await m.store.readAll(image.file_id), content_type: image.content_type, last_modified: image.stored / 1000, user_id: null };
		}
	}
}
