// What Notification Bot says about channels, in Zulip's words (zerver/views/streams.py and
// zerver/actions/streams.py): the direct message to users someone else subscribed, the new
// channel announcement, and the notices in a channel's "channel events" topic.

/** Someone who did something, as Zulip mentions them in a notice (silently). */
export interface Actor {
	user_id: number;
	full_name: string;
}

export interface ChannelPolicy {
	invite_only: boolean;
	history_public_to_subscribers: boolean;
	is_web_public: boolean;
}

/** Zulip's Realm.STREAM_EVENTS_NOTIFICATION_TOPIC_NAME. */
export const CHANNEL_EVENTS_TOPIC = "channel events";
/** The topic of new channel announcements. */
export const NEW_CHANNELS_TOPIC = "new channels";

/** A channel that allows only the empty topic gets its notices there (Zulip's channel_events_topic_name). */
export const channelEventsTopic = (channel: { topics_policy: string }) => (channel.topics_policy === "empty_topic_only" ? "" : CHANNEL_EVENTS_TOPIC);

const mention = (u: Actor) => `@_**${u.full_name}|${u.user_id}**`;
export const groupMention = (name: string) => `@_*${name}*`;
const NO_DESCRIPTION = "*No description.*";

/** Python's sorted() order for strings: by code point. */
function byCodePoint(a: string, b: string): number {
	const x = [...a].map((c) => c.codePointAt(0)!);
	const y = [...b].map((c) => c.codePointAt(0)!);
	for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
	return x.length - y.length;
}

/** Characters that break `#**name**` (Zulip's topic_link_util). */
const BROKEN_LINK = /[`>*&[\]]|\$\$/g;
const ESCAPES: Record<string, string> = { "`": "&#96;", ">": "&gt;", "*": "&#42;", "&": "&amp;", $$: "&#36;&#36;", "[": "&#91;", "]": "&#93;" };
const HASH_REPLACEMENTS: Record<string, string> = { "%": ".", "(": ".28", ")": ".29", ".": ".2E" };

/** Zulip's encode_hash_component: percent-encoding (only `*` kept besides letters, digits and `_.-~`), then `%` as `.`. */
function encodeHashComponent(s: string): string {
	const encoded = encodeURIComponent(s).replace(/[!'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
	return [...encoded].map((c) => HASH_REPLACEMENTS[c] ?? c).join("");
}

/** Zulip's get_stream_link_syntax: `#**name**`, or a plain link where the name would break it. */
export function channelLink(id: number, name: string): string {
	if (!name.match(BROKEN_LINK)) return `#**${name}**`;
	const text = name.replace(BROKEN_LINK, (m) => ESCAPES[m] ?? m);
	return `[#${text}](#narrow/channel/${id}-${encodeHashComponent(name.replace(/ /g, "-"))})`;
}

/** Stream.PERMISSION_POLICIES: the name of a channel's access policy. */
export function policyName(c: ChannelPolicy): string {
	if (c.is_web_public) return "Web-public";
	if (!c.invite_only) return c.history_public_to_subscribers ? "Public" : "Public, protected history";
	return c.history_public_to_subscribers ? "Private, shared history" : "Private, protected history";
}

/** The direct message to a user someone else subscribed to existing channels (you_were_just_subscribed_message). */
export function subscribedYou(actor: Actor, channelNames: string[]): string {
	const names = [...channelNames].sort(byCodePoint);
	if (names.length === 1) return `${mention(actor)} subscribed you to #**${names[0]}**.`;
	return `${mention(actor)} subscribed you to the following channels:\n\n${names.map((n) => `* #**${n}**\n`).join("")}`;
}

/** In the new channel announcements channel, topic "new channels", after `announce: true`. */
export function newChannelsAnnouncement(actor: Actor, channels: Array<{ id: number; name: string }>): string {
	const links = channels.map((c) => channelLink(c.id, c.name)).join(", ");
	return channels.length > 1 ? `${mention(actor)} created the following channels: ${links}.` : `${mention(actor)} created a new channel ${links}.`;
}

/** In a new channel's "channel events" topic. */
export function channelCreated(actor: Actor, channel: ChannelPolicy & { description: string }): string {
	const what = policyName(channel);
	return `**${what}** channel created by ${mention(actor)}. **Description:**\n\`\`\`\` quote\n${channel.description || NO_DESCRIPTION}\n\`\`\`\``;
}

export function renamed(actor: Actor, oldName: string, newName: string): string {
	return `${mention(actor)} renamed channel **${oldName}** to **${newName}**.`;
}

export function descriptionChanged(actor: Actor, oldDescription: string, newDescription: string): string {
	const quote = (d: string) => `\n\`\`\`\` quote\n${d || NO_DESCRIPTION}\n\`\`\`\``;
	return `${mention(actor)} changed the description for this channel.\n\n* **Old description:**${quote(oldDescription)}\n* **New description:**${quote(newDescription)}`;
}

export function accessChanged(actor: Actor, before: ChannelPolicy, after: ChannelPolicy): string {
	return `${mention(actor)} changed the [access permissions](/help/channel-permissions) for this channel from **${policyName(before)}** to **${policyName(after)}**.`;
}

/** Days, -1 for forever; null is the organization's setting, `realmDays`. */
export function retentionChanged(actor: Actor, before: number | null, after: number | null, realmDays: number): string {
	const old = before ?? realmDays;
	const now = after ?? realmDays;
	const days = (n: number) => `${n} days`;
	const deleted = `Messages in this channel will now be automatically deleted ${now} days after they are sent.`;
	const [oldPeriod, newPeriod, summary] =
		old === -1 ? ["Forever", days(now), deleted] : now === -1 ? [days(old), "Forever", "Messages in this channel will now be retained forever."] : [days(old), days(now), deleted];
	return (
		`${mention(actor)} has changed the [message retention period](/help/message-retention-policy) for this channel:\n` +
		`* **Old retention period**: ${oldPeriod}\n* **New retention period**: ${newPeriod}\n\n${summary}`
	);
}

export function topicsPolicyChanged(actor: Actor, before: string, after: string, emptyTopicName: string): string {
	const label = (policy: string) =>
		({
			inherit: "Automatic",
			allow_empty_topic: `*${emptyTopicName}* topic allowed`,
			disable_empty_topic: `No *${emptyTopicName}* topic`,
			empty_topic_only: `Only *${emptyTopicName}* topic allowed`,
		})[policy] ?? policy;
	return `${mention(actor)} changed the "Allow posting to the *general chat* topic?" setting from **${label(before)}** to **${label(after)}**.`;
}

/** Who a group setting names, as Zulip lists them: groups (by ID), then users (by ID), mentioned silently. */
export function settingHolders(groups: Array<{ id: number; name: string }>, users: Actor[]): string {
	const byId = <T>(list: T[], id: (x: T) => number) => [...list].sort((a, b) => id(a) - id(b));
	return [...byId(groups, (g) => g.id).map((g) => groupMention(g.name)), ...byId(users, (u) => u.user_id).map(mention)].join(", ");
}

export function postingPermissionsChanged(actor: Actor, before: string, after: string): string {
	return `${mention(actor)} changed the [posting permissions](/help/channel-posting-policy) for this channel:\n\n* **Old**: ${before}\n* **New**: ${after}\n`;
}

/** Posted into the channel as it is archived, read for everyone. */
export const archived = (name: string) => `Channel #**${name}** has been archived.`;

export const unarchived = (name: string) => `Channel #**${name}** has been unarchived.`;
