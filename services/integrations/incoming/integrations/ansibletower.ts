// Ansible Tower / AWX (zerver/webhooks/ansibletower/view.py): jobs, inventory updates, ad hoc
// commands and system jobs finishing, in the job name's topic; a job lists its hosts.
import type { Wild } from "../payload";
import { posts, type Integration, type WebhookRequest } from "../integration";

function friendlyName(p: Wild): string {
	const name = p.get("friendly_name", "").str();
	if (name) return name;
	const segment = p.at("url").str().split("/").at(-3) ?? "";
	return segment === "jobs" ? "Job" : segment;
}

function handle(req: WebhookRequest) {
	const p = req.payload();
	const name = p.at("name").str();
	const friendly = friendlyName(p);
	const status = p.at("status").str() === "successful" ? "was successful" : "failed";
	const head = `${friendly}: [#${p.at("id").int()} ${name}](${p.at("url").str()}) ${status}`;
	if (friendly !== "Job") return posts({ topic: name, content: `${head}.` });
	const hosts = p
		.at("hosts")
		.entries()
		.map(([host, data]) => [host, data.at("failed").bool() ? "Failed" : "Success"] as const)
		.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
	return posts({ topic: name, content: `${head}:\n${hosts.map(([host, s]) => `* ${host}: ${s}\n`).join("")}`.trim() });
}

export const ansibletower: Integration = { name: "ansibletower", displayName: "AnsibleTower", handle };
