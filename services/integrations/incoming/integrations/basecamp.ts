// Basecamp 3 (zerver/webhooks/basecamp/view.py): documents, questions and answers, messages,
// comments, to-do lists and to-dos, in the project's name as topic.
import { posts, UnsupportedEvent, type Integration, type Outcome, type WebhookRequest } from "../integration";
import type { Wild } from "../payload";
import { endsWithPunctuation } from "../toolkit/git";

const SUPPORTED = new Set([
	...["active", "created", "archived", "unarchived", "publicized", "title_changed", "content_changed", "trashed"].map((v) => `document_${v}`),
	...["archived", "created", "trashed", "unarchived"].map((v) => `question_${v}`),
	...["archived", "content_changed", "created", "trashed", "unarchived"].map((v) => `question_answer_${v}`),
	...["archived", "content_changed", "created", "subject_changed", "trashed", "unarchived"].map((v) => `message_${v}`),
	"comment_created",
	...["created", "description_changed", "name_changed"].map((v) => `todolist_${v}`),
	...["assignment_changed", "completed", "uncompleted", "created", "due_on_changed"].map((v) => `todo_${v}`),
]);

/** Each kind's prefix and what its subject is called; answers and comments name their parent too. */
const KINDS: Array<[prefix: string, noun: string]> = [
	["document_", "the document"],
	["question_answer_", "answer"],
	["question_", "the question"],
	["message_", "the message"],
	["todolist_", "the todo list"],
	["todo_", "the todo task"],
	["comment_", "comment"],
];

/** "active" is "activated", "name_changed" is "changed name of", others as they are. */
function verbOf(event: string, prefix: string): string {
	const verb = event.slice(prefix.length);
	if (verb === "active") return "activated";
	const changed = /^([A-Za-z]*)_changed/.exec(verb);
	return changed ? `changed ${changed[1]} of` : verb;
}

/** A sentence ending with the title's own punctuation, or a full stop. */
const ending = (title: string) => (endsWithPunctuation(title) ? "" : ".");

function handle(req: WebhookRequest): Outcome {
	const payload = req.json();
	const event = payload.at("kind").str();
	if (!SUPPORTED.has(event)) throw new UnsupportedEvent(event);
	const recording = payload.at("recording");
	const topic = recording.path("bucket", "name").str();
	const user = payload.path("creator", "name").str();
	const [prefix, noun] = KINDS.find(([p]) => event.startsWith(p))!;
	const verb = verbOf(event, prefix);
	const url = recording.at("app_url").str();
	let content: string;
	if (prefix === "question_answer_" || prefix === "comment_") {
		const parent: Wild = recording.at("parent");
		const title = parent.at("title").str();
		const of = prefix === "comment_" ? "the task" : "the question";
		content = `${user} ${verb} the [${noun}](${url}) of ${of} [${title}](${parent.at("app_url").str()})${ending(title)}`;
	} else {
		const title = recording.at("title").str();
		content = `${user} ${verb} ${noun} [${title}](${url})${ending(title)}`;
	}
	return posts({ topic, content, event });
}

export const basecamp: Integration = { name: "basecamp", displayName: "Basecamp", handle };
