// Freshstatus (zerver/webhooks/freshstatus/view.py): incidents opened and closed, notes,
// scheduled maintenance, in the incident's topic. A payload missing a field is a misconfigured
// webhook: the bot's owner is told.
import type { Wild } from "../payload";
import { posts, readingSetup, type Integration, type WebhookRequest } from "../integration";
import { setupMessage } from "../toolkit/common";

const notice = ({ botName, supportEmail }: { botName: string; supportEmail: string }) => `Hi there! Your bot ${botName} just received a Freshstatus payload that is missing
some data that Zulip requires. This usually indicates a configuration issue
in your Freshstatus webhook settings. Please make sure that you provide all the required parameters
when configuring the Freshstatus webhook. Contact ${supportEmail} if you
need further help!`;

const SERVICES_LIMIT = 5;

/** strftime("%Y-%m-%d %H:%M %Z") of the time as written: its zone named UTC when it is UTC. */
function time(w: Wild): string {
	const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(w.str());
	if (!m) throw new Error(`not a time: ${w.str()}`);
	const utc = m[3] === undefined ? "" : /^(Z|[+-]00:?00)$/.test(m[3]) ? "UTC" : "";
	return `${m[1]} ${m[2]} ${utc}`;
}

function services(p: Wild): string {
	const names = p.at("affected_services").str().split(",");
	let out = names
		.slice(0, SERVICES_LIMIT)
		.map((n) => `* ${n}\n`)
		.join("");
	if (names.length > SERVICES_LIMIT) out += `[and ${names.length - SERVICES_LIMIT} more service(s)]`;
	return out.trimEnd();
}

function body(p: Wild, event: string, isTest: boolean): string {
	const title = () => p.at("title").str();
	const note = (what: string) => `The following ${what}: **${title()}**\n**Note:** ${p.at("message").str()}`;
	if (isTest) return setupMessage("Freshstatus");
	if (event === "INCIDENT_OPEN")
		return `The following incident has been opened: **${title()}**\n**Description:** ${p.at("description").str()}\n**Start Time:** ${time(p.at("start_time"))}\n**Affected Services:**\n${services(p)}`;
	if (event === "INCIDENT_NOTE_CREATE") {
		const status = p.at("incident_status").str();
		if (status === "Closed") return note("incident has been closed");
		if (status === "Open") return note("note has been added to the incident");
	} else if (event === "MAINTENANCE_PLANNED") {
		return `The following scheduled maintenance has been opened: **${title()}**\n**Description:** ${p.at("description").str()}\n**Scheduled Start Time:** ${time(p.at("scheduled_start_time"))}\n**Scheduled End Time:** ${time(p.at("scheduled_end_time"))}\n**Affected Services:**\n${services(p)}`;
	} else if (event === "MAINTENANCE_NOTE_CREATE") {
		return p.at("incident_status").str() === "Closed" ? note("scheduled maintenance has been closed") : note("note has been added to the scheduled maintenance");
	}
	return `The event (${event}) is not supported yet.`;
}

function handle(req: WebhookRequest) {
	const p = req.json();
	return readingSetup(notice, () => {
		const event = p.path("event_data", "event_type").str();
		const isTest = event === "INCIDENT_OPEN" && p.at("id").str() === "1";
		return posts({ topic: isTest ? "Freshstatus" : p.at("title").str(), content: body(p, event, isTest), event });
	});
}

export const freshstatus: Integration = { name: "freshstatus", displayName: "Freshstatus", handle };
