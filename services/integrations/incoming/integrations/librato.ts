// Librato (zerver/webhooks/librato/view.py): alerts triggered (each violated condition) and
// cleared, in the topic "Alert <name>"; chart snapshots (a JSON body of Slack-style attachments)
// in "Snapshots".
import { badRequest } from "../../../../shared/errors";
import { parseJson, posts, type Integration, type Outcome, type WebhookRequest } from "../integration";
import { Wild, truthy } from "../payload";

const pad = (n: number) => String(n).padStart(2, "0");

/** UNIX seconds as "2016-03-31 09:11:42" (UTC). */
function utc(seconds: number): string {
	const d = new Date(seconds * 1000);
	if (Number.isNaN(d.getTime())) throw new Error("not a time");
	return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** Zulip's message names the alert "alert_name" literally; kept as Zulip posts it. */
const alertLink = (alert: Wild) => `[alert_name](https://metrics.librato.com/alerts#/${alert.at("id").int()})`;

function violation(payload: Wild): string {
	const alert = payload.at("alert");
	let content = `Alert ${alertLink(alert)} has triggered! `;
	const runbook = alert.at("runbook_url");
	if (runbook.truthy) content += `[Reaction steps](${runbook.str()}):`;
	const conditions = payload.at("conditions").list();
	const violations = payload.path("violations", "test-source").list();
	for (let i = 0; i < Math.min(conditions.length, violations.length); i++) {
		const c = conditions[i];
		const v = violations[i];
		const threshold = c.get("threshold", "").value;
		content += `\n * Metric \`${v.at("metric").str()}\`, ${c.at("summary_function").str()} was ${c.at("type").str()} ${threshold === "" ? "" : String(c.get("threshold").num())}`;
		const duration = c.get("duration", "");
		if (duration.truthy) content += ` by ${duration.num()}s`;
		content += `, recorded at ${utc(v.at("recorded_at").num())} UTC.`;
	}
	return content;
}

function handle(req: WebhookRequest): Outcome {
	const payload = req.param("payload") !== undefined ? req.jsonParam("payload") : new Wild({});
	let attachments: Wild[] = [];
	try {
		const body = new Wild(parseJson(req.body));
		if (body.has("attachments")) attachments = body.at("attachments").list();
	} catch {
		attachments = [];
	}
	if (!attachments.length && !payload.truthy) throw badRequest("Malformed JSON input");
	const topic = attachments.length ? "Snapshots" : `Alert ${payload.path("alert", "name").str()}`;
	let content: string;
	if (truthy(payload.get("clear").value)) content = `Alert ${alertLink(payload.at("alert"))} has cleared at ${utc(payload.at("trigger_time").num())} UTC!`;
	else if (truthy(payload.get("violations").value)) content = violation(payload);
	else if (attachments.length && attachments[0].get("image_url").truthy)
		content = attachments.map((a) => `**${a.at("author_name").str()}** sent a [snapshot](${a.at("image_url").str()}) of [metric](${a.at("title").str()})`).join("");
	else throw badRequest("Unexcepted message type");
	return posts({ topic, content });
}

export const librato: Integration = { name: "librato", displayName: "Librato", handle };
