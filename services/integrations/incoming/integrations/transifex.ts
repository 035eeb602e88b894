// Transifex (zerver/webhooks/transifex/view.py): a resource fully translated or reviewed, told in
// the query string, in the topic "<project> in <language>".
import { posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const [project, language, resource, event] = ["project", "language", "resource", "event"].map((name) => req.requiredParam(name));
	const topic = `${project} in ${language}`;
	if (event === "translation_completed" && req.param("translated") !== undefined) return posts({ topic, content: `Resource ${resource} fully translated.`, event });
	if (event === "review_completed" && req.param("reviewed") !== undefined) return posts({ topic, content: `Resource ${resource} fully reviewed.`, event });
	throw new UnsupportedEvent(event);
}

export const transifex: Integration = { name: "transifex", displayName: "Transifex", handle };
