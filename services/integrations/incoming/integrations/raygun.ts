// Raygun (zerver/webhooks/raygun/view.py): errors occurring and recurring, follow-ups, and what
// people do with them (status, comments, assignment), in the topic "test" as Zulip names it.
import { posts, UnsupportedEvent, type Integration, type Outcome, type WebhookRequest } from "../integration";
import type { Wild } from "../payload";
import { ctime, pyStr } from "../toolkit/common";

/** Raygun's "1970-01-28T01:49:36Z" (or without the Z) as Python's %c writes it. */
function parseTime(timestamp: string): string {
	const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z?$/.exec(timestamp);
	if (!m) throw new Error(`not a Raygun time: ${timestamp}`);
	return ctime(new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6])));
}

const appInfo = (app: Wild) => `* **Application details**: [${app.at("name").str()}](${app.at("url").str()})\n`;
const messageChunk = (message: string) => (message !== "" ? `* **Message**: ${message}\n` : "");
const timeChunk = (error: Wild) => `* **First occurred**: ${parseTime(error.at("firstOccurredOn").str())}\n* **Last occurred**: ${parseTime(error.at("lastOccurredOn").str())}\n`;
const statsChunk = (error: Wild) => `* ${error.at("usersAffected").int()} users affected with ${error.at("totalOccurrences").int()} total occurrences\n`;

function notification(payload: Wild, type: string): string {
	const error = payload.at("error");
	const link = `[Error](${error.at("url").str()})`;
	if (type === "NewErrorOccurred" || type === "ErrorReoccurred") {
		let message = type === "NewErrorOccurred" ? `New ${link} occurred:\n` : `${link} reoccurred:\n`;
		message += messageChunk(error.at("message").str()) + timeChunk(error) + statsChunk(error);
		const instance = error.at("instance");
		const tags = instance.at("tags");
		if (tags.present) message += `* **Tags**: ${tags.list().map((t) => t.str()).join(", ")}\n`;
		const user = instance.at("affectedUser");
		if (user.present) {
			const uuid = user.at("UUID").str();
			message += `* **Affected user**: ${uuid.slice(0, 6)}...${uuid.slice(-5)}\n`;
		}
		const custom = instance.at("customData");
		if (custom.present) for (const key of custom.keys().sort()) message += `* **${key}**: ${pyStr(custom.at(key).value)}\n`;
		return message + appInfo(payload.at("application"));
	}
	if (type.includes("FollowUp")) {
		const prefix = type === "HourlyFollowUp" ? "Hourly" : `${type.slice(0, type.length - 14)} minute`;
		return `${prefix} [follow-up error](${error.at("url").str()}):\n${messageChunk(error.at("message").str())}${timeChunk(error)}${statsChunk(error)}${appInfo(payload.at("application"))}`;
	}
	throw new UnsupportedEvent(type);
}

function activity(payload: Wild, type: string): string {
	if (type !== "StatusChanged" && type !== "AssignedToUser" && type !== "CommentAdded") throw new UnsupportedEvent(type);
	const error = payload.at("error");
	const link = `[Error](${error.at("url").str()})`;
	const user = error.at("user").str();
	let message: string;
	if (type === "StatusChanged") message = `${link} status changed to **${error.at("status").str()}** by ${user}:\n`;
	else if (type === "CommentAdded") message = `${user} commented on ${link}:\n\n\`\`\` quote\n${error.at("comment").str()}\n\`\`\`\n`;
	else message = `${user} assigned ${link} to ${error.at("assignedTo").str()}:\n`;
	return `${message}* **Timestamp**: ${parseTime(error.at("activityDate").str())}\n${appInfo(payload.at("application"))}`;
}

function handle(req: WebhookRequest): Outcome {
	const payload = req.json();
	const event = payload.at("event").str();
	const type = () => payload.at("eventType").str();
	let content: string;
	if (event === "error_notification") content = notification(payload, type());
	else if (event === "error_activity") content = activity(payload, type());
	else throw new UnsupportedEvent(event);
	return posts({ topic: "test", content: content.trimEnd(), event });
}

export const raygun: Integration = { name: "raygun", displayName: "Raygun", handle };
