// PATCH /streams/{stream_id}: who may change what, every combination the API rules out, and
// `{new, old}` group settings. Every change is checked first, then written in one update.
// Archiving a channel, and making it a default channel or not, at the end.
import type { Identity } from "../../shared/actions";
import { badRequest, insufficientPermission, ownerRequired, adminRequired } from "../../shared/errors";
import { unwrapSettingChange, type GroupGraph, type GroupSettingValue } from "../../shared/group-settings";
import { isAdmin, isOwner } from "../../shared/roles";
import type { ChannelsDb } from "./db";
import { CHANNEL_GROUP_SETTINGS, type ChannelDoc, type ChannelGroupSetting } from "./models/channel";
import { hasContentAccess, hasMetadataAccess, isChannelAdmin } from "./access";
import { invalidChannel } from "./channel-lookup";
import { checkWebPublicAllowed, checkChannelName, checkDescription, checkGroupSetting, checkRetention, checkTopicsPolicy, renderDescription } from "./channel-rules";

export interface StreamChanges {
	description?: string;
	new_name?: string;
	is_private?: boolean;
	is_web_public?: boolean;
	history_public_to_subscribers?: boolean;
	is_default_stream?: boolean;
	message_retention_days?: unknown;
	is_archived?: boolean;
	folder_id?: number | null;
	topics_policy?: string;
	[setting: string]: unknown;
}

/** Settings whose change needs only metadata access (the others need content access). */
const METADATA_ONLY: ChannelGroupSetting[] = ["can_remove_subscribers_group", "can_administer_channel_group"];

export const cannotAdminister = () => badRequest("You do not have permission to administer this channel.");

/** A `{new, old}` group-setting change; a stale `old` is refused. */
function checkSettingChange(graph: GroupGraph, name: ChannelGroupSetting, raw: unknown, current: GroupSettingValue): GroupSettingValue {
	const next = unwrapSettingChange(name, raw, current);
	if (next === undefined) throw badRequest(`Invalid ${name}`);
	return checkGroupSetting(graph, name, next);
}

export async function updateStream(db: ChannelsDb, graph: GroupGraph, actor: Identity, channel: ChannelDoc, subscribed: boolean, q: StreamChanges): Promise<Record<string, unknown>> {
	const admin = isChannelAdmin(graph, actor, channel);
	const content = hasContentAccess(graph, actor, channel, subscribed);
	const metadata = hasMetadataAccess(graph, actor, channel, subscribed);
	const set: Record<string, unknown> = {};

	if (channel.is_archived) {
		const allowed = new Set(["is_archived", "is_private", "history_public_to_subscribers"]);
		const other = Object.keys(q).find((k) => q[k] !== undefined && !allowed.has(k));
		if (other) throw badRequest("Archived channels cannot be edited; unarchive the channel first.");
	}

	if (q.is_archived !== undefined) {
		if (q.is_archived && !channel.is_archived) throw badRequest("Channels are archived with DELETE /streams/{stream_id}; this endpoint only unarchives.");
		if (!q.is_archived && channel.is_archived) {
			if (!admin) throw cannotAdminister();
			if (await db.Channel.exists({ realm_id: db.realmId, name_key: channel.name_key, _id: { $ne: channel._id } })) {
				throw badRequest(`Channel '${channel.name}' already exists`);
			}
			// As Zulip's do_unarchive_stream: a private channel comes back only with a subscriber
			// (deactivated users' subscriptions count).
			if (channel.invite_only && !(await db.Subscription.exists({ channel_id: channel._id, active: true }))) {
				throw badRequest("Channel is private and have no subscribers");
			}
			set.is_archived = false;
		}
	}

	if (q.new_name !== undefined) {
		if (!admin) throw cannotAdminister();
		const name = checkChannelName(q.new_name);
		// As Zulip: the very same name is refused; a change of case only is a rename.
		if (name === channel.name) throw badRequest("Channel already has that name.");
		const clash = await db.Channel.findOne({ realm_id: db.realmId, name_key: name.toLowerCase() }).lean();
		if (clash && clash._id !== channel._id) throw badRequest(`Channel '${name}' already exists`);
		set.name = name;
		set.name_key = name.toLowerCase();
	}

	if (q.description !== undefined) {
		if (!admin) throw cannotAdminister();
		const d = checkDescription(q.description);
		set.description = d;
		set.rendered_description = renderDescription(d);
	}

	// Privacy and history: the combination that results must be allowed.
	const privacyChange = q.is_private !== undefined || q.history_public_to_subscribers !== undefined || q.is_web_public !== undefined;
	if (privacyChange) {
		// For a private channel, administering it is not enough: one must also have content access.
		if (!admin || (channel.invite_only && !content)) throw cannotAdminister();
		// Zulip's rule: what is not given keeps its value, except that is_private without
		// history_public_to_subscribers sets the history too (protected when private, public
		// otherwise). A web-public channel stays web-public unless is_web_public says otherwise.
		const inviteOnly = q.is_private ?? channel.invite_only;
		const webPublic = q.is_web_public ?? channel.is_web_public;
		const history = q.history_public_to_subscribers ?? (q.is_private !== undefined ? !q.is_private : channel.history_public_to_subscribers);
		if (webPublic && (!history || inviteOnly)) throw badRequest("Invalid parameters");
		if (!inviteOnly && !history) throw badRequest("Invalid parameters");
		if (inviteOnly && (q.is_default_stream ?? channel.is_default)) throw badRequest("A default channel cannot be private.");
		if (inviteOnly !== channel.invite_only) {
			const needed = inviteOnly ? "can_create_private_channel_group" : "can_create_public_channel_group";
			if (!graph.realmAllows(needed, actor.user_id)) throw insufficientPermission();
		}
		if (webPublic && !channel.is_web_public) checkWebPublicAllowed(db.webPublicStreams, graph, actor.user_id);
		Object.assign(set, { invite_only: inviteOnly, is_web_public: webPublic, history_public_to_subscribers: history });
	}

	if (q.is_default_stream !== undefined) {
		if (!isAdmin(actor.role)) throw adminRequired();
		if (q.is_default_stream && (set.invite_only ?? channel.invite_only)) throw badRequest("A default channel cannot be private.");
		set.is_default = q.is_default_stream;
	}

	if (q.message_retention_days !== undefined) {
		if (!isOwner(actor.role)) throw ownerRequired();
		set.message_retention_days = checkRetention(q.message_retention_days);
	}

	if (q.folder_id !== undefined) {
		if (!admin) throw cannotAdminister();
		if (q.folder_id !== null && !(await db.ChannelFolder.exists({ _id: q.folder_id, realm_id: db.realmId, is_archived: false }))) {
			throw badRequest("Invalid channel folder ID");
		}
		set.folder_id = q.folder_id;
	}

	if (q.topics_policy !== undefined) {
		if (!admin) throw cannotAdminister();
		const policy = checkTopicsPolicy(q.topics_policy);
		// Known from the messages service's events: whether any message has a non-empty topic.
		if (policy === "empty_topic_only" && channel.has_named_topics) {
			throw badRequest("To enable this configuration, all messages in this channel must be in the general chat topic.");
		}
		set.topics_policy = policy;
	}

	for (const key of CHANNEL_GROUP_SETTINGS) {
		if (q[key] === undefined) continue;
		const access = METADATA_ONLY.includes(key) ? metadata : content;
		if (!admin || !access) throw cannotAdminister();
		set[`settings.${key}`] = checkSettingChange(graph, key, q[key], channel.settings[key]);
	}

	if (Object.keys(set).length) await db.Channel.updateOne({ _id: channel._id }, { $set: set });
	return set;
}

/** DELETE /streams/{stream_id}: channel administrators archive a channel, which stops being a default one. */
export async function archiveChannel(db: ChannelsDb, graph: GroupGraph, actor: Identity, channel: ChannelDoc): Promise<void> {
	if (!isChannelAdmin(graph, actor, channel)) throw badRequest("You do not have permission to administer this channel.");
	if (channel.is_archived) throw badRequest("Channel is already archived");
	await db.Channel.updateOne({ _id: channel._id }, { $set: { is_archived: true, is_default: false } });
}

/** POST /default_streams: a public, active channel becomes a default one. */
export async function addDefault(db: ChannelsDb, channel: ChannelDoc): Promise<void> {
	if (channel.invite_only) throw badRequest("Private channels cannot be made default.");
	if (channel.is_archived) throw invalidChannel();
	await db.Channel.updateOne({ _id: channel._id }, { $set: { is_default: true } });
}

/** DELETE /default_streams. */
export async function removeDefault(db: ChannelsDb, channel: ChannelDoc): Promise<void> {
	if (!channel.is_default) throw badRequest("Channel is not a default channel.");
	await db.Channel.updateOne({ _id: channel._id }, { $set: { is_default: false } });
}
