// Patreon (zerver/webhooks/patreon/view.py): members joining, updating and leaving, pledges
// created, updated and cancelled (the X-Patreon-Event header), in the topic "membership
// notifications"; declined charges and the deprecated pledge events post nothing.
import type { Wild } from "../payload";
import { nothing, posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";

const IGNORED = new Set(["pledges:create", "pledges:update", "pledges:delete"]);

function body(event: string, p: Wild): string | null {
	const attrs = p.path("data", "attributes");
	const charge = attrs.at("last_charge_status").strOrNull();
	const status = attrs.at("patron_status").strOrNull();
	const name = () => attrs.at("full_name").str();
	const campaign = () => p.at("included").item(0).at("attributes");
	const amount = () => attrs.at("currently_entitled_amount_cents").int() / 100;
	const paid = charge === "Paid" || charge === null;
	switch (event) {
		case "members:create":
			return charge === null && status === null ? `${name()} has joined as a member!` : null;
		case "members:update":
			return paid && (status === "active_patron" || status === "former_patron") ? `${name()}'s membership has been updated to ${status.replaceAll("_", " ")}.` : null;
		case "members:delete":
			return paid && status !== "declined_patron" ? `${name()}'s membership has ended.` : null;
		case "members:pledge:create":
			return paid && amount() > 0
				? `${name()} has pledged $${amount().toFixed(2)} per ${campaign().at("pay_per_name").str()}. :tada:\nTotal number of patrons: ${campaign().at("patron_count").int()}`
				: null;
		case "members:pledge:update":
			return paid && amount() > 0 ? `${name()} has updated their pledge to $${amount().toFixed(2)} per ${campaign().at("pay_per_name").str()}. :gear:` : null;
		case "members:pledge:delete":
			return paid || charge === "Deleted" ? `${name()}'s pledge has been cancelled. :cross_mark:\nTotal number of patrons: ${campaign().at("patron_count").int()}` : null;
	}
	throw new UnsupportedEvent(event);
}

function handle(req: WebhookRequest) {
	const p = req.json();
	const event = req.eventHeader("X-Patreon-Event");
	if (IGNORED.has(event)) return nothing();
	const content = body(event, p);
	return content === null ? nothing() : posts({ topic: "membership notifications", content, event });
}

export const patreon: Integration = { name: "patreon", displayName: "Patreon", handle };
