// HelloSign / Dropbox Sign (zerver/webhooks/hellosign/view.py): who signed a document and who has
// yet to, JSON in the `json` form field, in the document's topic. HelloSign expects the answer
// "Hello API Event Received".
import { posts, type Integration, type WebhookRequest } from "../integration";

/** "A", "A, B, and C" (two: "A, and B"), as Zulip's view writes them. */
function names(list: string[]): string {
	if (list.length === 1) return list[0];
	return `${list.slice(0, -1).map((n) => `${n}, `).join("")}and ${list[list.length - 1]}`;
}

function handle(req: WebhookRequest) {
	const p = req.jsonParam("json");
	const answer = { msg: "Hello API Event Received" };
	if (!p.has("signature_request")) return { posts: [], data: answer };
	const request = p.at("signature_request");
	const title = request.at("title").str();
	const byStatus = new Map<string, string[]>();
	for (const s of request.at("signatures").list()) {
		const status = s.at("status_code").str();
		byStatus.set(status, [...(byStatus.get(status) ?? []), s.at("signer_name").str()]);
	}
	let actions = "";
	const awaiting = byStatus.get("awaiting_signature");
	if (awaiting?.length) actions += `is awaiting the signature of ${names(awaiting)}`;
	const signed = byStatus.get("signed");
	if (signed?.length) actions = actions ? `${actions}, and was just signed by ${names(signed)}` : `was just signed by ${names(signed)}`;
	return { ...posts({ topic: title, content: `The \`${title}\` document ${actions}.`.trim() }), data: answer };
}

export const hellosign: Integration = { name: "hellosign", displayName: "HelloSign", handle };
