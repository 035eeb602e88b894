// Intercom (zerver/webhooks/intercom/view.py): companies, contacts, conversations, events and
// users, in a topic per contact ("Lead: Eeshan Garg"). Intercom checks the URL with a HEAD request.
import { nothing, posts, UnsupportedEvent, type Integration, type Outcome, type WebhookRequest } from "../integration";
import type { Wild } from "../payload";
import { stripTags } from "../toolkit/html";

type Message = [topic: string, body: string];

/** "Lead: Eeshan Garg": the contact's type, and its name, pseudonym or email. */
function contactTopic(user: Wild): string {
	const type = user.at("type").str();
	const name = user.get("name").strOrNull() || user.get("pseudonym").strOrNull() || user.get("email").strOrNull();
	return `${type.charAt(0).toUpperCase()}${type.slice(1).toLowerCase()}: ${name ?? "None"}`;
}

const location = (contact: Wild) => ["city_name", "region_name", "country_name"].map((k) => contact.path("location_data", k).str()).join(", ");
const quoted = (who: string | null, action: string, html: string) => `${who ?? "None"} ${action}:\n\n\`\`\` quote\n${stripTags(html)}\n\`\`\``;
const firstPart = (item: Wild) => item.path("conversation_parts", "conversation_parts").item(0).at("body").str();

function signedUp(item: Wild): Message {
	return [contactTopic(item), `Contact signed up:\n* **Email**: ${item.at("email").str()}\n* **Location**: ${location(item)}`];
}

function adminAction(action: string) {
	return (item: Wild): Message => [contactTopic(item.at("user")), `${item.at("assignee").get("name").strOrNull() ?? "None"} ${action} the conversation.`];
}

function adminReply(action: string) {
	return (item: Wild): Message => [contactTopic(item.at("user")), quoted(item.at("assignee").get("name").strOrNull(), `${action} the conversation`, firstPart(item))];
}

function userTagged(action: string) {
	return (item: Wild): Message => [contactTopic(item.at("user")), `The tag \`${item.path("tag", "name").str()}\` was ${action} the user.`];
}

/** Each event's message from the payload's `data.item`. */
const EVENTS: Record<string, (item: Wild) => Message> = {
	"company.created": (item) => ["Companies", `New company **${item.at("name").str()}** created:\n* **User count**: ${item.at("user_count").int()}\n* **Monthly spending**: ${item.at("monthly_spend").int()}`],
	"contact.added_email": (item) => [contactTopic(item), `New email ${item.at("email").str()} added to contact.`],
	"contact.created": (item) => [
		contactTopic(item),
		`New contact created:\n* **Name (or pseudonym)**: ${(item.get("name").strOrNull() || item.get("pseudonym").strOrNull()) ?? "None"}\n* **Email**: ${item.at("email").str()}\n* **Location**: ${location(item)}`,
	],
	"contact.signed_up": signedUp,
	"contact.tag.created": (item) => [contactTopic(item.at("contact")), `Contact tagged with the \`${item.path("tag", "name").str()}\` tag.`],
	"contact.tag.deleted": (item) => [contactTopic(item.at("contact")), `The tag \`${item.path("tag", "name").str()}\` was removed from the contact.`],
	"conversation.admin.assigned": (item) => [contactTopic(item.at("user")), `${item.path("assignee", "name").str()} assigned to conversation.`],
	"conversation.admin.closed": adminAction("closed"),
	"conversation.admin.opened": adminAction("opened"),
	"conversation.admin.snoozed": adminAction("snoozed"),
	"conversation.admin.unsnoozed": adminAction("unsnoozed"),
	"conversation.admin.replied": adminReply("replied to"),
	"conversation.admin.noted": adminReply("added a note to"),
	"conversation.admin.single.created": (item) => [contactTopic(item.at("user")), quoted(item.at("assignee").get("name").strOrNull(), "initiated a conversation", item.path("conversation_message", "body").str())],
	"conversation.user.created": (item) => [contactTopic(item.at("user")), quoted(item.at("user").get("name").strOrNull(), "initiated a conversation", item.path("conversation_message", "body").str())],
	"conversation.user.replied": (item) => [contactTopic(item.at("user")), quoted(item.at("user").get("name").strOrNull(), "replied to the conversation", firstPart(item))],
	"event.created": (item) => ["Events", `New event **${item.at("event_name").str()}** created.`],
	"user.created": (item) => [contactTopic(item), `New user created:\n* **Name**: ${item.at("name").str()}\n* **Email**: ${item.at("email").str()}`],
	"user.deleted": (item) => [contactTopic(item), "User deleted."],
	"user.email.updated": (item) => [contactTopic(item), `User's email was updated to ${item.at("email").str()}.`],
	"user.tag.created": userTagged("added to"),
	"user.tag.deleted": userTagged("removed from"),
	"user.unsubscribed": (item) => [contactTopic(item), "User unsubscribed from emails."],
	"visitor.signed_up": signedUp,
};

function handle(req: WebhookRequest): Outcome {
	if (req.call.method === "HEAD") return nothing();
	const payload = req.json();
	const event = payload.at("topic").str();
	if (event === "ping") return nothing();
	const message = Object.hasOwn(EVENTS, event) ? EVENTS[event] : undefined;
	if (!message) throw new UnsupportedEvent(event);
	const [topic, content] = message(payload.path("data", "item"));
	return posts({ topic, content, event });
}

export const intercom: Integration = { name: "intercom", displayName: "Intercom", handle };
