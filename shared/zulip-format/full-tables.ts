// The small tables only a full export holds (Zulip's `manage.py export`): users' topics, muted
// users, alert words and statuses, bots' storage, the organization's linkifiers, code playgrounds
// and custom emoji, scheduled messages (realm.json), and the uploaded files' records
// (attachment.json). Rows are numbered here where this server keeps no ID of its own.
import { formatReactionType } from "./reaction-types";
import type { Clients } from "./message-files";
import type { Recipients } from "./recipients";
import type { FullExtras } from "./source";
import { DeliveryType, type Row, type Tables } from "./tables";

const numbered = <T>(items: T[], row: (item: T) => Row): Row[] => items.map((item, i) => ({ id: i + 1, ...row(item) }));

export function fullTables(realmId: number, x: FullExtras, recipients: Recipients, clients: Clients): Tables {
	const alertWords = x.alert_words.flatMap((a) => a.words.map((word) => ({ user: a.user_id, word })));
	return {
		zerver_usertopic: numbered(x.user_topics, (t) => ({
			user_profile: t.user_id,
			stream: t.channel_id,
			recipient: recipients.channel(t.channel_id) ?? null,
			topic_name: t.topic,
			last_updated: t.last_updated,
			visibility_policy: t.visibility_policy,
		})),
		zerver_muteduser: numbered(x.muted_users, (m) => ({ user_profile: m.user_id, muted_user: m.muted_user_id, date_muted: m.date_muted })),
		zerver_alertword: numbered(alertWords, (a) => ({ realm: realmId, user_profile: a.user, word: a.word })),
		zerver_userstatus: numbered(x.user_statuses, (s) => ({
			user_profile: s.user_id,
			timestamp: s.timestamp,
			client: clients.id("website"),
			status_text: s.status_text,
			emoji_name: s.emoji_name,
			emoji_code: s.emoji_code,
			reaction_type: formatReactionType(s.reaction_type),
		})),
		zerver_botstoragedata: numbered(x.bot_storage, (b) => ({ bot_profile: b.bot_id, key: b.key, value: b.value })),
		zerver_realmfilter: x.linkifiers.map((l) => ({ id: l.id, realm: realmId, pattern: l.pattern, url_template: l.url_template, order: l.order })),
		zerver_realmplayground: x.playgrounds.map((p) => ({ id: p.id, realm: realmId, name: p.name, pygments_language: p.pygments_language, url_template: p.url_template })),
		zerver_realmemoji: x.emoji.map((e) => ({ id: e.id, author: e.author_id, realm: realmId, name: e.name, file_name: e.file_name, is_animated: e.is_animated, deactivated: e.deactivated })),
		zerver_scheduledmessage: x.scheduled.map((s) => {
			const toChannel = typeof s.to === "number";
			return {
				id: s.id,
				sender: s.sender_id,
				recipient: typeof s.to === "number" ? (recipients.channel(s.to) ?? null) : (recipients.dm([s.sender_id, ...s.to], s.sender_id) ?? null),
				subject: s.topic,
				content: s.content,
				rendered_content: s.rendered_content,
				sending_client: clients.id("website"),
				stream: toChannel ? s.to : null,
				realm: realmId,
				scheduled_timestamp: s.scheduled_timestamp,
				read_by_sender: s.read_by_sender,
				delivered: s.state === "delivered",
				delivered_message: s.delivered_message_id,
				has_attachment: /\/user_uploads\//.test(s.rendered_content),
				failed: s.state === "failed",
				failure_message: s.failure_message,
				delivery_type: DeliveryType.SEND_LATER,
			};
		}),
	};
}

/** attachment.json's zerver_attachment: the uploaded files, with the messages that link them. */
export function attachmentRows(realmId: number, x: FullExtras): Row[] {
	return x.attachments.map((a) => ({
		id: a.id,
		file_name: a.file_name,
		path_id: a.path_id,
		owner: a.owner_id,
		realm: realmId,
		create_time: a.create_time,
		size: a.size,
		content_type: a.content_type,
		is_realm_public: a.is_realm_public,
		is_web_public: a.is_web_public,
		messages: a.message_ids,
		scheduled_messages: [],
	}));
}
