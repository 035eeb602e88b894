// Jotform (zerver/webhooks/jotform/view.py): a form's submission (a multipart form), each answer
// of its `pretty` field ("Label:Value, ...") as a list item, in the form's title as topic.
import { badRequest } from "../../../../shared/errors";
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const topic = req.param("formTitle");
	const pretty = req.param("pretty") ?? "";
	if (!topic) throw badRequest("Unable to handle Jotform payload");
	const lines = pretty.split(", ").map((field) => {
		const colon = field.indexOf(":");
		if (colon < 0) throw badRequest("Unable to handle Jotform payload");
		const label = field.slice(0, colon);
		return `* **${label}**${label.endsWith("?") ? " " : ": "}${field.slice(colon + 1)}`;
	});
	return posts({ topic, content: lines.join("\n").trim() });
}

export const jotform: Integration = { name: "jotform", displayName: "Jotform", handle };
