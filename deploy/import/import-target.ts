// Where an import writes: each service's own database (`<prefix>_<service>`), through the
// services' own Mongoose models, so documents have the shapes and indexes the services expect.
//
// Decision (how data gets in): the import writes the collections directly, in bulk, rather than
// calling the services' actions. The actions check a caller and announce each change, one item
// at a time: a message send through them would render again (the export holds the rendering),
// deliver events and cost a bus round trip per message, and there is no caller yet for most of
// what an export holds (a channel created by a user who does not exist). Bulk writes of the
// models' own documents, with the fields the services derive computed by the services' own
// functions (search words, per-user message rows), are one write per thousand records.
//
// Decision (no half-imported organization): the target database prefix must hold nothing yet:
// every service database is checked empty before the first write, and when the import fails the
// databases it wrote are dropped again, so the prefix is as empty as before. The server started
// on that prefix afterwards finds the organization and its owner and serves them; nothing has to
// reach a running server (none runs on an empty prefix: a server's first start would have
// created an organization there), so no change is relayed (services/users/change-relay.ts).
import type { Connection } from "mongoose";
import { connectServiceDb, ensureIndexes } from "../../shared/db";
import { channelModel } from "../../services/channels/models/channel";
import { subscriptionModel } from "../../services/channels/models/subscription";
import { userTopicModel } from "../../services/channels/models/user-topic";
import { messageModel } from "../../services/messages/models/message";
import { userMessageModel } from "../../services/messages/models/user-message";
import { recipientModel } from "../../services/messages/models/recipient";
import { reactionModel } from "../../services/messages/models/reaction";
import { alertWordsModel } from "../../services/messages/models/alert-words";
import { attachmentModel } from "../../services/uploads/models/attachment";
import { publicImageModel } from "../../services/uploads/models/public-image";
import { usageModel } from "../../services/uploads/upload-space";
import { FileStore } from "../../services/uploads/file-store";
import { realmModel } from "../../services/users/models/realm";
import { userModel } from "../../services/users/models/user";
import { userGroupModel } from "../../services/users/models/user-group";
import { realmEmojiModel } from "../../services/users/models/realm-emoji";
import { linkifierModel } from "../../services/users/models/linkifier";
import { mutedUserModel } from "../../services/users/models/muted-user";
import { scheduledMessageModel } from "../../services/scheduling/models/scheduled-message";
import { userStatusModel } from "../../services/users/models/user-status";
import { botStorageModel } from "../../services/users/models/bot-storage";
import { playgroundModel } from "../../services/users/models/playground";
import { profileFieldModel } from "../../services/users/models/profile-field";

/** The models whose indexes are built after the import's bulk writes. */
const LATE_INDEXES = new Set(["Message", "UserMessage"]);

/** The service databases an import writes (the others stay empty and are made at first start). */
export const TARGET_SERVICES = ["users", "channels", "messages", "uploads", "scheduling"] as const;

function models(conns: Record<(typeof TARGET_SERVICES)[number], Connection>) {
	const { users, channels, messages, uploads, scheduling } = conns;
	return {
		Realm: realmModel(users),
		User: userModel(users),
		UserGroup: userGroupModel(users),
		RealmEmoji: realmEmojiModel(users),
		Linkifier: linkifierModel(users),
		MutedUser: mutedUserModel(users),
		ProfileField: profileFieldModel(users),
		UserStatus: userStatusModel(users),
		BotStorage: botStorageModel(users),
		Playground: playgroundModel(users),
		Channel: channelModel(channels),
		Subscription: subscriptionModel(channels),
		UserTopic: userTopicModel(channels),
		Message: messageModel(messages),
		UserMessage: userMessageModel(messages),
		Recipient: recipientModel(messages),
		Reaction: reactionModel(messages),
		AlertWords: alertWordsModel(messages),
		Attachment: attachmentModel(uploads),
		Images: publicImageModel(uploads),
		Usage: usageModel(uploads),
		store: new FileStore(uploads),
		ScheduledMessage: scheduledMessageModel(scheduling),
	};
}

export type Models = ReturnType<typeof models>;

export interface Target {
	prefix: string;
	conns: Record<(typeof TARGET_SERVICES)[number], Connection>;
	m: Models;
	/** Raises a service's ID counter for `entity` to at least `seq` (the next ID is seq + 1). */
	raiseCounter(service: (typeof TARGET_SERVICES)[number], entity: string, seq: number): Promise<void>;
	/** Builds the indexes left for after the bulk load. */
	finishIndexes(): Promise<void>;
	/** Drops every database the import wrote: the prefix is empty again. */
	dropAll(): Promise<void>;
	close(): Promise<void>;
}

export async function openTarget(mongoUrl: string, prefix: string): Promise<Target> {
	const conns = {} as Target["conns"];
	const close = async () => {
		await Promise.all(Object.values(conns).map((c) => c.close()));
	};
	try {
		for (const s of TARGET_SERVICES) conns[s] = await connectServiceDb(mongoUrl, prefix, s);
		for (const s of TARGET_SERVICES) {
			for (const c of await conns[s].db!.listCollections({}, { nameOnly: true }).toArray()) {
				if (await conns[s].db!.collection(c.name).estimatedDocumentCount()) {
					throw new Error(
						`The database ${prefix}_${s} already holds data (${c.name}): an import goes into a database prefix that holds no organization yet; set DB_PREFIX to a new one.`,
					);
				}
			}
		}
		const m = models(conns);
		// The big collections get their indexes after the bulk load (finishIndexes): one build is
		// cheaper than keeping five indexes current through millions of inserts. Their rows are
		// checked for duplicates as they are read (messages.ts), as a unique index would.
		for (const s of TARGET_SERVICES) for (const model of Object.values(conns[s].models)) if (!LATE_INDEXES.has(model.modelName)) await model.createIndexes();
		await m.store.ensureIndexes();
		return {
			prefix,
			conns,
			m,
			async raiseCounter(service, entity, seq) {
				await conns[service].db!.collection<{ _id: string; seq: number }>("counters").updateOne({ _id: entity }, { $max: { seq } }, { upsert: true });
			},
			async finishIndexes() {
				for (const s of TARGET_SERVICES) await ensureIndexes(conns[s]);
			},
			async dropAll() {
				for (const s of TARGET_SERVICES) await conns[s].db!.dropDatabase();
			},
			close,
		};
	} catch (err) {
		await close();
		throw err;
	}
}
