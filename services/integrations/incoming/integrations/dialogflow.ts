// Dialogflow (zerver/webhooks/dialogflow/view.py): the agent's answer (or its error) as a direct
// message to the user named by the URL's `email`.
import { badRequest } from "../../../../shared/errors";
import { posts, type Integration, type WebhookRequest } from "../integration";

async function handle(req: WebhookRequest) {
	const payload = req.json();
	const email = req.requiredParam("email");
	const status = payload.path("status", "code");
	let body: string;
	if (status.value === 200) {
		const result = payload.path("result", "fulfillment", "speech");
		if (result.truthy) body = result.str();
		else {
			const alternate = payload.path("alternateResult", "fulfillment", "speech");
			body = alternate.truthy ? alternate.str() : "Dialogflow couldn't process your query.";
		}
	} else body = `${status.int()} - ${payload.path("status", "errorDetails").str()}`;
	const { by_email } = await req.lookups.people([email], []);
	const person = by_email[email] ?? by_email[email.toLowerCase()];
	if (!person) throw badRequest(`No user with the email ${email}`);
	return posts({ topic: "", content: body, directTo: person.user_id });
}

export const dialogflow: Integration = { name: "dialogflow", displayName: "Dialogflow", handle };
