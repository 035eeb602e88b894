// Trello (zerver/webhooks/trello/view/): card and board actions, in the board's name as topic.
// Trello checks the URL with a HEAD request first, answered with success.
import { nothing, posts, UnsupportedEvent, type Integration, type Outcome, type WebhookRequest } from "../integration";
import type { Wild } from "../payload";

/** Card actions Trello sends that Zulip deliberately leaves unposted. */
const IGNORED_ACTIONS = new Set(["copyCard", "createCheckItem", "updateCheckItem", "updateList"]);
/** Card updates left unposted: moves within a list, cover changes. */
const IGNORED_CARD_FIELDS = ["cover", "dueComplete", "idAttachmentCover", "pos"];

/** "2016-05-11T10:00:00.000Z" as "2016-05-11 10:00:00 UTC". */
const prettyDate = (d: string) => d.replace("T", " ").replace(".000", "").replace("Z", " UTC");
const quote = (text: string) => `\n~~~ quote\n${text}\n~~~\n`;

function cardUpdate(data: Wild): string | null {
	const old = data.at("old");
	const card = data.at("card");
	const link = () => cardLink(data);
	if (data.get("listBefore").truthy) return `moved ${link()} from ${data.path("listBefore", "name").str()} to ${data.path("listAfter", "name").str()}.`;
	if (old.get("name").strOrNull()) return `renamed the card from "${old.at("name").str()}" to ${link()}.`;
	const oldDesc = old.get("desc").strOrNull();
	if (oldDesc === "") return `set description for ${link()} to:${quote(card.at("desc").str())}`;
	if (oldDesc) {
		if (card.get("desc").strOrNull() === "") return `removed description from ${link()}.`;
		return `changed description for ${link()} from${quote(old.at("desc").str())}to${quote(card.at("desc").str())}`;
	}
	if (old.get("due", "").strOrNull() === null) return `set due date for ${link()} to ${prettyDate(card.at("due").str())}.`;
	if (old.get("due").strOrNull()) {
		if (card.get("due", "").strOrNull() === null) return `removed the due date from ${link()}.`;
		return `changed due date for ${link()} from ${prettyDate(old.at("due").str())} to ${prettyDate(card.at("due").str())}.`;
	}
	const oldClosed = old.get("closed");
	if (oldClosed.value === false && card.get("closed", false).bool()) return `archived ${link()}.`;
	if (oldClosed.present && oldClosed.bool() && card.get("closed").present && card.get("closed").bool() === false) return `reopened ${link()}.`;
	if (IGNORED_CARD_FIELDS.some((f) => old.has(f))) return null;
	throw new UnsupportedEvent("updateCard");
}

function cardLink(data: Wild): string {
	const card = data.at("card");
	return `[${card.at("name").str()}](https://trello.com/c/${card.at("shortLink").str()})`;
}

function cardAction(action: Wild, type: string): string | null {
	const data = action.at("data");
	switch (type) {
		case "updateCard":
			return cardUpdate(data);
		case "createCard":
			return `created ${cardLink(data)}.`;
		case "addLabelToCard":
			return `added a ${data.at("value").str()} label with "${data.at("text").str()}" to ${cardLink(data)}.`;
		case "removeLabelFromCard":
			return `removed a ${data.at("value").str()} label with "${data.at("text").str()}" from ${cardLink(data)}.`;
		case "addMemberToCard":
			return `added ${action.path("member", "fullName").str()} to ${cardLink(data)}.`;
		case "removeMemberFromCard":
			return `removed ${action.path("member", "fullName").str()} from ${cardLink(data)}.`;
		case "addAttachmentToCard":
			return `added [${data.path("attachment", "name").str()}](${data.path("attachment", "url").str()}) to ${cardLink(data)}.`;
		case "addChecklistToCard":
			return `added the ${data.path("checklist", "name").str()} checklist to ${cardLink(data)}.`;
		case "commentCard":
			return `commented on ${cardLink(data)}:${quote(data.at("text").str())}`;
		case "updateCheckItemStateOnCard": {
			const checked = data.path("checkItem", "state").str() === "complete" ? "checked" : "unchecked";
			return `${checked} **${data.path("checkItem", "name").str()}** in **${data.path("checklist", "name").str()}** (${cardLink(data)}).`;
		}
		default:
			return undefined as never;
	}
}

const CARD_ACTIONS = new Set(["updateCard", "createCard", "addLabelToCard", "removeLabelFromCard", "addMemberToCard", "removeMemberFromCard", "addAttachmentToCard", "addChecklistToCard", "commentCard", "updateCheckItemStateOnCard"]);

function boardAction(action: Wild, type: string): string | null {
	const data = action.at("data");
	const board = data.at("board");
	const link = `[${board.at("name").str()}](https://trello.com/b/${board.at("shortLink").str()})`;
	switch (type) {
		case "removeMemberFromBoard":
			return `removed ${action.path("member", "fullName").str()} from ${link}.`;
		case "addMemberToBoard":
			return `added ${action.path("member", "fullName").str()} to ${link}.`;
		case "createList":
			return `added ${data.path("list", "name").str()} list to ${link}.`;
		case "updateBoard":
			if (data.at("old").get("prefs", {}).get("background").present) return null;
			if (data.at("old").get("name").truthy) return `renamed the board from ${data.path("old", "name").str()} to ${link}.`;
			throw new UnsupportedEvent(type);
		default:
			return undefined as never;
	}
}

const BOARD_ACTIONS = new Set(["removeMemberFromBoard", "addMemberToBoard", "createList", "updateBoard"]);

function handle(req: WebhookRequest): Outcome {
	if (req.call.method === "HEAD") return nothing();
	const action = req.json().at("action");
	const type = action.get("type").strOrNull() ?? "";
	let rest: string | null;
	if (CARD_ACTIONS.has(type)) rest = cardAction(action, type);
	else if (BOARD_ACTIONS.has(type)) rest = boardAction(action, type);
	else if (IGNORED_ACTIONS.has(type)) return nothing();
	else throw new UnsupportedEvent(type);
	if (rest === null) return nothing();
	const creator = action.at("memberCreator").get("fullName").strOrNull();
	return posts({ topic: action.path("data", "board", "name").str(), content: `${creator ?? "None"} ${rest}` });
}

export const trello: Integration = { name: "trello", displayName: "Trello", handle };
