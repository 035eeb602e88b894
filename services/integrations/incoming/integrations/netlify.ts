// Netlify (zerver/webhooks/netlify/view.py): deploys building, created, failed, locked and
// unlocked (the X-Netlify-Event header), in the branch's topic.
import { posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";

const EVENTS = new Set(["deploy_failed", "deploy_locked", "deploy_unlocked", "deploy_building", "deploy_created"]);

function handle(req: WebhookRequest) {
	const p = req.payload();
	const event = req.eventHeader("X-Netlify-Event");
	if (!EVENTS.has(event)) throw new UnsupportedEvent(event);
	const branch = p.at("branch").str();
	const head = `The build [${p.at("name").str()}](${p.at("url").str()}) on branch ${branch} `;
	const tail =
		event === "deploy_failed" ? p.at("error_message").str() : event === "deploy_locked" ? "is now locked." : event === "deploy_unlocked" ? "is now unlocked." : `is now ${p.at("state").str()}.`;
	return posts({ topic: branch, content: head + tail, event });
}

export const netlify: Integration = { name: "netlify", displayName: "Netlify", handle };
