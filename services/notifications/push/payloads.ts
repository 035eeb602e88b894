// The notification payloads, field for field as Zulip's server builds them for the bouncer
// (zerver/lib/push_notifications.py): get_base_payload, get_message_payload, get_message_payload_apns,
// get_message_payload_gcm, get_remove_payload_apns/gcm. The bouncer hands `gcm_payload` to FCM as
// the data message and `apns_payload` to APNs (its `custom` beside `aps`); the mobile apps read them.
import type { NotificationTrigger } from "../missed/notification-data";
import { mobilePushContent, truncateContent } from "./push-content";

/** The organization and server a payload names (so an app logged into several can tell them apart). */
export interface PushRealm {
	id: number;
	name: string;
	url: string;
}

/**
 * A message as the API shows it (message.sent's `event.message`, content as HTML): the fields a
 * payload reads.
 */
export interface PushMessage {
	id: number;
	sender_id: number;
	sender_email: string;
	sender_full_name: string;
	/** Absolute, or relative to the organization's URL. */
	avatar_url: string | null;
	timestamp: number;
	/** Rendered HTML. */
	content: string;
	type: string;
	/** The channel's name, or every participant of a direct message. */
	display_recipient: string | Array<{ id: number; full_name: string }>;
	stream_id?: number;
	subject: string;
}

/** Triggers whose subtitle says "mentioned everyone" (Zulip's wildcard mention triggers). */
const WILDCARD_TRIGGERS: NotificationTrigger[] = ["topic_wildcard_mentioned_in_followed_topic", "stream_wildcard_mentioned_in_followed_topic", "topic_wildcard_mentioned", "stream_wildcard_mentioned"];

/** The user group a mention named, when the user was mentioned through it (not personally). */
export interface MentionedGroup {
	id: number;
	name: string;
}

export interface PushRecipient {
	user_id: number;
	realm: PushRealm;
	/** Zulip's EXTERNAL_HOST: the server's host (and port). */
	server: string;
}

/** Zulip's get_topic_display_name: the empty topic shows as "general chat". */
const topicDisplayName = (topic: string) => (topic === "" ? "general chat" : topic);

const participants = (m: PushMessage) => (Array.isArray(m.display_recipient) ? m.display_recipient : []);
/** A direct message to more than one other person (Zulip's group DM with over two recipients). */
const isGroupDm = (m: PushMessage) => m.type !== "stream" && participants(m).length > 2;

/** Zulip's get_base_payload. */
export function basePayload(to: PushRecipient): Record<string, unknown> {
	return { server: to.server, realm_id: to.realm.id, realm_uri: to.realm.url, realm_url: to.realm.url, realm_name: to.realm.name, user_id: to.user_id };
}

/** Zulip's get_message_payload: what both platforms' message payloads share. */
function messagePayload(to: PushRecipient, m: PushMessage, group: MentionedGroup | null): Record<string, unknown> {
	const data = basePayload(to);
	data.sender_id = m.sender_id;
	data.sender_email = m.sender_email;
	data.time = m.timestamp;
	if (group) Object.assign(data, { mentioned_user_group_id: group.id, mentioned_user_group_name: group.name });
	if (m.type === "stream") {
		Object.assign(data, { recipient_type: "stream", stream: m.display_recipient, stream_id: m.stream_id, topic: topicDisplayName(m.subject) });
	} else {
		data.recipient_type = "private";
		if (isGroupDm(m)) {
			data.pm_users = participants(m)
				.map((r) => r.id)
				.sort((a, b) => a - b)
				.join(",");
		}
	}
	return data;
}

/** Zulip's get_apns_alert_title: the first bold line on iOS. */
function apnsTitle(m: PushMessage): string {
	if (isGroupDm(m))
		return participants(m)
			.map((r) => r.full_name)
			.sort()
			.join(", ");
	if (m.type === "stream") return `#${String(m.display_recipient)} > ${topicDisplayName(m.subject)}`;
	return m.sender_full_name;
}

/** Zulip's get_apns_alert_subtitle: the second bold line. */
function apnsSubtitle(m: PushMessage, trigger: NotificationTrigger, group: MentionedGroup | null): string {
	const sender = m.sender_full_name;
	if (trigger === "mentioned") return group ? `${sender} mentioned @${group.name}:` : `${sender} mentioned you:`;
	if (WILDCARD_TRIGGERS.includes(trigger)) return `${sender} mentioned everyone:`;
	if (m.type !== "stream" && !isGroupDm(m)) return "";
	return `${sender}:`;
}

const contentOf = (m: PushMessage, to: PushRecipient) => truncateContent(mobilePushContent(m.content, to.realm.url));

/** Zulip's get_message_payload_apns. The badge is 0, as Zulip's get_apns_badge_count today. */
export function messagePayloadApns(to: PushRecipient, m: PushMessage, trigger: NotificationTrigger, group: MentionedGroup | null = null): Record<string, unknown> {
	const zulip = { ...messagePayload(to, m, group), message_ids: [m.id] };
	return {
		alert: { title: apnsTitle(m), subtitle: apnsSubtitle(m, trigger, group), body: contentOf(m, to).content },
		sound: "default",
		badge: 0,
		custom: { zulip },
	};
}

/** Zulip's absolute_avatar_url: a relative avatar URL is made absolute on the organization's URL. */
const absoluteAvatarUrl = (url: string | null, realmUrl: string) => (url === null ? null : new URL(url, realmUrl + "/").toString());

/** Zulip's get_message_payload_gcm: the FCM data and options. */
export function messagePayloadGcm(to: PushRecipient, m: PushMessage, group: MentionedGroup | null = null): { gcm_payload: Record<string, unknown>; gcm_options: Record<string, unknown> } {
	const { content, truncated } = contentOf(m, to);
	const data = {
		...messagePayload(to, m, group),
		event: "message",
		zulip_message_id: m.id,
		content,
		content_truncated: truncated,
		sender_full_name: m.sender_full_name,
		sender_avatar_url: absoluteAvatarUrl(m.avatar_url, to.realm.url),
	};
	return { gcm_payload: data, gcm_options: { priority: "high" } };
}

/** Zulip's MAX_APNS_MESSAGE_IDS: a removal names the newest 200 messages. */
export const MAX_REMOVE_IDS = 200;

/** Zulip's get_remove_payload_gcm and get_remove_payload_apns, for messages now read (at most the newest 200). */
export function removePayloads(to: PushRecipient, messageIds: number[]) {
	const ids = [...messageIds].sort((a, b) => a - b).slice(-MAX_REMOVE_IDS);
	const joined = ids.join(",");
	return {
		gcm_payload: { ...basePayload(to), event: "remove", zulip_message_ids: joined, zulip_message_id: ids[0] },
		gcm_options: { priority: "normal" },
		apns_payload: { badge: 0, custom: { zulip: { ...basePayload(to), event: "remove", zulip_message_ids: joined } } },
	};
}
