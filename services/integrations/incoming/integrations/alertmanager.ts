// Prometheus Alertmanager (zerver/webhooks/alertmanager/view.py): alerts grouped by the label or
// annotation the URL's `name` names (default `instance`) into topics, one message for the firing
// and one for the resolved alerts of each; `desc` names the field that describes an alert
// (default `alertname`).
import { badRequest } from "../../../../shared/errors";
import type { Integration, Post, WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const p = req.json();
	const nameField = req.param("name") ?? "instance";
	const descField = req.param("desc") ?? "alertname";
	const topics = new Map<string, { firing: string[]; resolved: string[] }>();
	for (const alert of p.at("alerts").list()) {
		const labels = alert.get("labels", {});
		const annotations = alert.get("annotations", {});
		const name = labels.get(nameField, annotations.get(nameField, "(unknown)").value).str();
		const desc = labels.get(descField, annotations.get(descField, `<missing field: ${descField}>`).value).str();
		const body = alert.has("generatorURL") ? `${desc} ([source](${alert.at("generatorURL").str().replaceAll("tab=1", "tab=0")}))` : desc;
		const status = alert.at("status").str();
		if (status !== "firing" && status !== "resolved") throw badRequest(`Invalid ${alert.at("status").name}`);
		if (!topics.has(name)) topics.set(name, { firing: [], resolved: [] });
		topics.get(name)![status].push(body);
	}
	const list: Post[] = [];
	for (const [topic, statuses] of topics) {
		for (const [status, messages] of Object.entries(statuses)) {
			if (!messages.length) continue;
			const head = status === "firing" ? ":alert: **FIRING**" : ":squared_ok: **Resolved**";
			list.push({ topic, content: messages.length === 1 ? `${head} ${messages[0]}` : `${head}\n${messages.map((m) => `* ${m}`).join("\n")}` });
		}
	}
	return { posts: list };
}

export const alertmanager: Integration = { name: "alertmanager", displayName: "Alertmanager", handle };
