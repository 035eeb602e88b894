// PagerDuty (zerver/webhooks/pagerduty/view.py): incidents from webhooks V1 and V2 (a list of
// messages, one Zulip message each) and V3 (one event). The topic is "Incident <number or title>".
import type { Wild } from "../payload";
import { UnsupportedEvent, type Integration, type Post, type WebhookRequest } from "../integration";

const V1_ACTIONS: Record<string, string> = {
	"incident.trigger": "triggered",
	"incident.acknowledge": "acknowledged",
	"incident.unacknowledge": "unacknowledged",
	"incident.resolve": "resolved",
	"incident.assign": "assigned",
	"incident.escalate": "escalated",
	"incident.delegate": "delineated",
};
const V2_ACTIONS: Record<string, string> = { "incident.trigger": "triggered", "incident.acknowledge": "acknowledged", "incident.resolve": "resolved", "incident.assign": "assigned" };

interface Facts {
	action: string;
	num: string;
	url: string;
	service: string;
	serviceUrl: string;
	assignee: string;
	agent?: string;
	trigger?: string;
	policy?: string;
	details?: string;
}

type Template = (f: Facts) => string;
const link = (f: Facts) => `[${f.num}](${f.url})`;
const trigger = (f: Facts) => f.trigger ?? "";
const WITH_SERVICE: Template = (f) => `Incident ${link(f)} ${f.action} by [${f.service}](${f.serviceUrl}) (assigned to ${f.assignee}).\n\n${trigger(f)}`;
const WITH_ASSIGNEE: Template = (f) => `Incident ${link(f)} ${f.action} by ${f.assignee}.\n\n${trigger(f)}`.trim();
const ASSIGNED: Template = (f) => `Incident ${link(f)} ${f.action} to ${f.assignee}.\n\n${trigger(f)}`.trim();
const RESOLVED_BY: Template = (f) => `Incident ${link(f)} resolved by ${f.agent}.\n\n${trigger(f)}`.trim();
const RESOLVED: Template = (f) => `Incident ${link(f)} resolved.\n\n${trigger(f)}`.trim();
const detailed = (what: string): Template => (f) => `Incident ${link(f)} ${what}${f.details}`;
const responder = (verb: string): Template => (f) => `Responder ${f.assignee} ${verb} incident ${link(f)}.\n\n\`\`\` quote\n${f.details}\n\`\`\``;

const V3: Record<string, [string, Template]> = {
	"incident.triggered": ["triggered", WITH_SERVICE],
	"incident.acknowledged": ["acknowledged", WITH_ASSIGNEE],
	"incident.unacknowledged": ["unacknowledged", WITH_SERVICE],
	"incident.resolved": ["resolved", RESOLVED],
	"incident.reassigned": ["reassigned", ASSIGNED],
	"incident.escalated": ["escalated", (f) => `Incident ${link(f)} escalated to ${f.assignee}.`],
	"incident.delegated": ["delegated", (f) => `Incident ${link(f)} delegated; ${f.policy}current assignee is ${f.assignee}.`],
	"incident.reopened": ["reopened", (f) => `Incident ${link(f)} reopened.`],
	"incident.priority_updated": ["priority updated", detailed("priority updated to ")],
	"incident.status_update_published": ["status updated", detailed("status update published: ")],
	"incident.annotated": ["annotated", detailed("annotated with: ")],
	"incident.responder.added": ["responder added", responder("added to")],
	"incident.responder.replied": ["responder replied", responder("replied to")],
	"incident.conference_bridge.updated": ["conference bridge updated", detailed("conference bridge updated: ")],
	"incident.service_updated": ["service updated", detailed("service updated to ")],
	"incident.workflow.started": ["workflow started", detailed("workflow started: ")],
	"incident.workflow.completed": ["workflow completed", detailed("workflow completed: ")],
};

const agent = (name: string, url: string) => `[${name}](${url})`;
const quoteTrigger = (message: string) => `\`\`\` quote\n${message}\n\`\`\``;
/** The local part of an address (Python's email.headerregistry.Address.username). */
const localPart = (email: string) => email.slice(0, email.lastIndexOf("@") < 0 ? email.length : email.lastIndexOf("@"));

function v1Facts(m: Wild): Facts {
	const incident = m.path("data", "incident");
	const f: Facts = {
		action: V1_ACTIONS[m.at("type").str()],
		num: String(incident.at("incident_number").int()),
		url: incident.at("html_url").str(),
		service: incident.path("service", "name").str(),
		serviceUrl: incident.path("service", "html_url").str(),
		assignee: incident.get("assigned_to_user").truthy ? agent(localPart(incident.path("assigned_to_user", "email").str()), incident.path("assigned_to_user", "html_url").str()) : "nobody",
	};
	if (incident.get("resolved_by_user").truthy) f.agent = agent(localPart(incident.path("resolved_by_user", "email").str()), incident.path("resolved_by_user", "html_url").str());
	const lines: string[] = [];
	const summary = incident.get("trigger_summary_data");
	if (summary.truthy) {
		for (const key of ["subject", "description"]) {
			const v = summary.get(key, "").str();
			if (v) lines.push(v);
		}
	}
	f.trigger = quoteTrigger(lines.join("\n"));
	return f;
}

function v2Facts(m: Wild): Facts {
	const incident = m.at("incident");
	const assignments = incident.at("assignments");
	const f: Facts = {
		action: V2_ACTIONS[m.at("event").str()],
		num: String(incident.at("incident_number").int()),
		url: incident.at("html_url").str(),
		service: incident.path("service", "name").str(),
		serviceUrl: incident.path("service", "html_url").str(),
		assignee: assignments.truthy ? agent(assignments.item(0).path("assignee", "summary").str(), assignments.item(0).path("assignee", "html_url").str()) : "nobody",
	};
	const by = incident.get("last_status_change_by");
	if (by.present) f.agent = agent(by.at("summary").str(), by.at("html_url").str());
	const description = incident.get("description").strOrNull();
	if (description !== null) f.trigger = quoteTrigger(description);
	return f;
}

function v3Details(type: string, data: Wild): string {
	switch (type) {
		case "incident.priority_updated":
			return data.get("priority").truthy ? data.path("priority", "summary").str() : "";
		case "incident.status_update_published":
		case "incident.responder.added":
		case "incident.responder.replied":
			return data.at("message").str();
		case "incident.annotated":
			return data.at("content").str();
		case "incident.conference_bridge.updated":
			return data.get("conference_url").truthy ? data.at("conference_url").str() : "";
		case "incident.service_updated":
			return data.get("service").truthy ? data.path("service", "summary").str() : "";
		case "incident.workflow.started":
		case "incident.workflow.completed": {
			const workflow = data.path("incident_workflow", "summary").str();
			const summary = data.get("summary", "").str();
			return summary ? `${workflow} (${summary})` : workflow;
		}
		default:
			return "";
	}
}

function v3Facts(event: Wild, type: string): Facts {
	const data = event.at("data");
	const incident = data.get("incident");
	const service = data.get("service");
	const assignees = data.get("assignees");
	const person = assignees.truthy ? assignees.item(0) : data.get("user").truthy ? data.at("user") : null;
	const policy = data.get("escalation_policy");
	const f: Facts = {
		action: V3[type][0],
		num: incident.truthy ? incident.at("summary").str() : `${data.at("title").str()} (#${data.at("number").int()})`,
		url: incident.truthy ? incident.at("html_url").str() : data.at("html_url").str(),
		service: service.truthy ? service.at("summary").str() : "",
		serviceUrl: service.truthy ? service.at("html_url").str() : "",
		assignee: person ? agent(person.at("summary").str(), person.at("html_url").str()) : "nobody",
		policy: policy.truthy ? `current escalation policy is [${policy.at("summary").str()}](${policy.at("html_url").str()}) and ` : "",
		trigger: "",
		details: v3Details(type, data),
	};
	const by = event.get("agent");
	if (by.present) f.agent = agent(by.at("summary").str(), by.at("html_url").str());
	return f;
}

function templateFor(type: string, f: Facts): Template {
	if (type === "incident.trigger" || type === "incident.triggered" || type === "incident.unacknowledge" || type === "incident.unacknowledged") return WITH_SERVICE;
	if (type === "incident.assign" || type === "incident.reassigned") return ASSIGNED;
	if (type === "incident.resolve" || type === "incident.resolved") return f.agent !== undefined ? RESOLVED_BY : RESOLVED;
	return Object.hasOwn(V3, type) ? V3[type][1] : WITH_ASSIGNEE;
}

const post = (type: string, f: Facts): Post => ({ topic: `Incident ${f.num}`, content: templateFor(type, f)(f), event: f.action });

function handle(req: WebhookRequest) {
	const p = req.json();
	const list: Post[] = [];
	const messages = p.get("messages");
	if (messages.truthy) {
		for (const m of messages.list()) {
			const type = m.get("type").strOrNull();
			if (type === null) break;
			if (!Object.hasOwn(V1_ACTIONS, type)) throw new UnsupportedEvent(type);
			list.push(post(type, v1Facts(m)));
		}
		for (const m of messages.list()) {
			const event = m.get("event").strOrNull();
			if (event === null) break;
			if (!Object.hasOwn(V2_ACTIONS, event)) throw new UnsupportedEvent(event);
			list.push(post(event, v2Facts(m)));
		}
	} else if (p.has("event")) {
		const type = p.at("event").get("event_type").strOrNull();
		if (type === null || !Object.hasOwn(V3, type)) throw new UnsupportedEvent(String(type));
		list.push(post(type, v3Facts(p.at("event"), type)));
	}
	return { posts: list };
}

export const pagerduty: Integration = { name: "pagerduty", displayName: "PagerDuty", handle };
