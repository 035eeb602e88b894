// Stripe (zerver/webhooks/stripe/view.py): charges, disputes, refunds, customers, discounts,
// subscriptions, invoices and invoice items, in the customer's ID as topic where there is one.
// Events Zulip leaves aside on purpose (Connect, balance, payouts, ...) succeed with nothing posted.
import { clock } from "../../../../shared/clock";
import { nothing, posts, UnsupportedEvent, type Integration, type Outcome, type WebhookRequest } from "../integration";
import type { Wild } from "../payload";
import { pyStr } from "../toolkit/common";

/** Categories Zulip recognises and deliberately does not post. */
const SUPPRESSED = ["application_fee", "balance", "checkout_beta", "coupon", "payment_intent", "payout", "plan", "product", "recipient", "reporting", "review", "sigma", "sku", "source", "subscription_schedule", "topup", "transfer"];
const ZERO_DECIMAL = new Set(["bif", "djf", "jpy", "krw", "pyg", "vnd", "xaf", "xpf", "clp", "gnf", "kmf", "mga", "rwf", "vuv", "xof"]);

/** An object ID's prefix: its name, and the dashboard's path for it (none: no page of its own). */
const OBJECTS: Record<string, [string, string | null]> = {
	ch: ["Charge", "charges"],
	cus: ["Customer", "customers"],
	dp: ["Dispute", "disputes"],
	du: ["Dispute", "disputes"],
	file: ["File", "files"],
	link: ["File link", "file_links"],
	pi: ["Payment intent", "payment_intents"],
	po: ["Payout", "payouts"],
	prod: ["Product", "products"],
	re: ["Refund", "refunds"],
	tok: ["Token", "tokens"],
	ba: ["Bank account", null],
	card: ["Card", null],
	src: ["Source", null],
	in: ["Invoice", "invoices"],
	ii: ["Invoice item", "invoiceitems"],
	sub: ["Subscription", "subscriptions"],
	si: ["Subscription item", "subscription_items"],
	mbur: ["Usage record", null],
	py: ["Payment", "payments"],
	pyr: ["Refund", "refunds"],
};

class Suppressed extends Error {}

function linked(id: string, lower = false): string {
	const known = OBJECTS[id.split("_")[0]];
	if (!known) throw new Error(`unknown Stripe object ${id}`);
	const name = lower ? known[0].toLowerCase() : known[0];
	return known[1] === null ? name : `[${name}](https://dashboard.stripe.com/${known[1]}/${id})`;
}

function amount(value: number, currency: string): string {
	const decimal = ZERO_DECIMAL.has(currency) ? String(value) : (value * 0.01).toFixed(2);
	return currency === "usd" ? `$${decimal}` : `${decimal} ${currency.toUpperCase()}`;
}

const SHORT_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const pad = (n: number) => String(n).padStart(2, "0");

/** A changed attribute's new value; UNIX times of these years as strftime("%b %d, %Y, %H:%M:%S %Z"). */
function stringify(v: unknown): string {
	if (typeof v === "number" && Number.isInteger(v) && v > 1500000000 && v < 2000000000) {
		const d = new Date(v * 1000);
		return `${SHORT_MONTHS[d.getUTCMonth()]} ${pad(d.getUTCDate())}, ${d.getUTCFullYear()}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC`;
	}
	return pyStr(v);
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();

function topicAndBody(payload: Wild): { topic: string; body: string } {
	const type = payload.at("type").str();
	const parts = type.split(".");
	if (parts.length !== 2 && parts.length !== 3) throw new Error(`not a Stripe event type: ${type}`);
	const [category, resource, event] = parts.length === 3 ? parts : [parts[0], parts[0], parts[1]];
	const object = payload.path("data", "object");
	let topic = object.get("customer").strOrNull() ?? "";
	let body: string | null = null;

	const updates = (ignored: string[] = []) => {
		const changed = payload.path("data", "previous_attributes").keys().filter((k) => !ignored.includes(k)).sort();
		if (!changed.length) throw new Suppressed();
		return changed.map((k) => `\n* ${capitalize(k.replace(/_/g, " "))} is now ${stringify(object.at(k).value)}`).join("");
	};
	const standard = (ignored: string[] = []) => {
		const head = `${linked(object.at("id").str())} ${event.replace(/_/g, " ")}`;
		return event === "updated" ? head + updates(ignored) : head;
	};

	if (category === "account") {
		if (resource !== "account") throw new Suppressed();
		if (event === "updated") {
			if (!payload.at("data").has("previous_attributes")) throw new Suppressed();
			topic = "account updates";
			body = updates();
		}
	}
	if (SUPPRESSED.includes(category) || category.startsWith("issuing") || category.startsWith("order")) throw new Suppressed();
	if (category === "charge") {
		if (resource === "charge") {
			topic ||= "charges";
			body = `${linked(object.at("id").str())} for ${amount(object.at("amount").int(), object.at("currency").str())} ${event}`;
			if (object.at("failure_code").truthy) body += `. Failure code: ${object.at("failure_code").str()}`;
		}
		if (resource === "dispute") {
			topic = "disputes";
			body = `${standard()}. Current status: ${object.at("status").str().replace(/_/g, " ")}.`;
		}
		if (resource === "refund") {
			topic = "refunds";
			body = `A ${linked(object.at("id").str(), true)} for a ${linked(object.at("charge").str(), true)} of ${amount(object.at("amount").int(), object.at("currency").str())} was updated.`;
		}
	}
	if (category === "customer") {
		if (resource === "customer") {
			topic = object.at("id").str();
			body = standard(["delinquent", "currency", "default_source"]);
			if (event === "created") {
				if (object.at("email").truthy) body += `\nEmail: ${object.at("email").str()}`;
				if (object.at("metadata").truthy) for (const [k, v] of object.at("metadata").entries()) body += `\n${k}: ${v.str()}`;
			}
		}
		if (resource === "discount") {
			const coupon = object.at("coupon");
			body = `Discount ${event.replace(/_/g, " ")} ([${coupon.at("name").str()}](https://dashboard.stripe.com/coupons/${coupon.at("id").str()})).`;
		}
		if (resource === "source") body = standard();
		if (resource === "subscription") {
			body = standard();
			if (event === "trial_will_end") {
				const DAY = 86400;
				body += ` in ${Math.floor((object.at("trial_end").int() - clock.nowMs() / 1000 + DAY / 2) / DAY)} days`;
			}
			if (event === "created") {
				const plan = object.at("plan");
				if (plan.truthy) {
					const nickname = plan.at("nickname").strOrNull();
					const url = `https://dashboard.stripe.com/plans/${plan.at("id").str()}`;
					body += nickname !== null ? `\nPlan: [${nickname}](${url})` : `\nPlan: ${url}`;
				}
				if (object.at("quantity").truthy) body += `\nQuantity: ${object.at("quantity").int()}`;
				if (object.has("billing")) body += `\nBilling method: ${object.at("billing").str().replace(/_/g, " ")}`;
			}
		}
	}
	if (category === "file") {
		topic = "files";
		body = `${standard()} (${object.at("purpose").str().replace(/_/g, " ")}). \nTitle: ${object.at("title").str()}`;
	}
	if (category === "invoice") {
		if (event === "upcoming") body = "Upcoming invoice created";
		else if (
			event === "updated" &&
			payload.path("data", "previous_attributes").get("paid").value === false &&
			object.at("paid").bool() &&
			object.at("amount_paid").int() !== 0 &&
			object.at("amount_remaining").int() === 0
		)
			body = `[Invoice](https://dashboard.stripe.com/invoices/${object.at("id").str()}) is now paid`;
		else body = standard(["lines", "description", "number", "finalized_at", "status_transitions", "payment_intent"]);
		if (event === "created") {
			const currency = object.at("currency").str();
			body += ` (${object.at("billing_reason").str().replace(/_/g, " ")})\nTotal: ${amount(object.at("total").int(), currency)}\nAmount due: ${amount(object.at("amount_due").int(), currency)}`;
		}
	}
	if (category === "invoiceitem") {
		body = standard(["description", "invoice"]);
		if (event === "created") body += ` for ${amount(object.at("amount").int(), object.at("currency").str())}`;
	}
	if (body === null) throw new UnsupportedEvent(type);
	return { topic, body };
}

function handle(req: WebhookRequest): Outcome {
	const payload = req.payload();
	try {
		const { topic, body } = topicAndBody(payload);
		return posts({ topic, content: body, event: payload.at("type").str() });
	} catch (err) {
		if (err instanceof Suppressed) return nothing();
		throw err;
	}
}

export const stripe: Integration = { name: "stripe", displayName: "Stripe", handle };
