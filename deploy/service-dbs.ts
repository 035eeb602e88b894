// The databases of the services whose data moves in and out of the server (`<prefix>_<service>`),
// opened directly with the services' own Mongoose models: what the importer (deploy/import/)
// writes and the exporter (deploy/export/) reads, without running the services.
import type { Connection } from "mongoose";
import { connectServiceDb } from "../shared/db";
import { channelModel } from "../services/channels/models/channel";
import { subscriptionModel } from "../services/channels/models/subscription";
import { userTopicModel } from "../services/channels/models/user-topic";
import { messageModel } from "../services/messages/models/message";
import { userMessageModel } from "../services/messages/models/user-message";
import { recipientModel } from "../services/messages/models/recipient";
import { reactionModel } from "../services/messages/models/reaction";
import { alertWordsModel } from "../services/messages/models/alert-words";
import { attachmentModel } from "../services/uploads/models/attachment";
import { publicImageModel } from "../services/uploads/models/public-image";
import { usageModel } from "../services/uploads/upload-space";
import { FileStore } from "../services/uploads/file-store";
import { realmModel } from "../services/users/models/realm";
import { userModel } from "../services/users/models/user";
import { userGroupModel } from "../services/users/groups/user-group-model";
import { mutedUserModel } from "../services/users/muting/muted-user-model";
import { scheduledMessageModel } from "../services/scheduling/models/scheduled-message";
import { userStatusModel } from "../services/users/status/user-status-model";
import { botStorageModel } from "../services/users/bot-storage/bot-storage-model";
import { profileFieldModel } from "../services/users/profile-fields/profile-field-model";
import { catalogModels } from "../services/catalog/db";

/** The service databases an import writes and an export reads (the others hold nothing that moves). */
export const TARGET_SERVICES = ["users", "channels", "messages", "uploads", "scheduling", "catalog"] as const;

export type ServiceConns = Record<(typeof TARGET_SERVICES)[number], Connection>;

export function serviceModels(conns: ServiceConns) {
	const { users, channels, messages, uploads, scheduling, catalog } = conns;
	return {
		Realm: realmModel(users),
		User: userModel(users),
		UserGroup: userGroupModel(users),
		MutedUser: mutedUserModel(users),
		ProfileField: profileFieldModel(users),
		UserStatus: userStatusModel(users),
		BotStorage: botStorageModel(users),
		...catalogModels(catalog),
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

export type Models = ReturnType<typeof serviceModels>;

/** Connects to each of TARGET_SERVICES' databases under `prefix`; on failure, closes what it opened. */
export async function connectServiceDbs(mongoUrl: string, prefix: string): Promise<{ conns: ServiceConns; close(): Promise<void> }> {
	const conns = {} as ServiceConns;
	const close = async () => {
		await Promise.all(Object.values(conns).map((c) => c.close()));
	};
	try {
		for (const s of TARGET_SERVICES) conns[s] = await connectServiceDb(mongoUrl, prefix, s);
	} catch (err) {
		await close();
		throw err;
	}
	return { conns, close };
}
