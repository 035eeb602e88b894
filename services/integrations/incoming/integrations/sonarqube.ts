// SonarQube (zerver/webhooks/sonarqube/view.py): a project's analysis and the quality gate's
// failing conditions, in the topic "<project> / <branch>".
import type { Wild } from "../payload";
import { posts, type Integration, type WebhookRequest } from "../integration";

const INVERSE_OPERATORS: Record<string, string> = { WORSE_THAN: "should be better or equal to", GREATER_THAN: "should be less than or equal to", LESS_THAN: "should be greater than or equal to" };

function condition(c: Wild): string {
	const metric = c.at("metric").str().split("_").join(" ");
	const operator = c.at("operator").str();
	const value = c.get("value", "no value").str();
	const status = c.at("status").str().toLowerCase();
	const threshold = c.at("errorThreshold").str();
	if (value === "no value") return `* ${metric}: **${status}**.`;
	return `* ${metric}: **${status}** ${value} ${INVERSE_OPERATORS[operator] ?? operator} ${threshold}.`;
}

function body(p: Wild, branch: string | null): string {
	const project = p.at("project");
	const gate = p.at("qualityGate");
	const status = gate.at("status").str().toLowerCase() === "ok" ? "success" : "error";
	const conditions = gate
		.at("conditions")
		.list()
		.filter((c) => !["ok", "no_value"].includes(c.at("status").str().toLowerCase()))
		.map(condition)
		.join("\n");
	const head = `Project [${project.at("name").str()}](${project.at("url").str()}) analysis${branch ? ` of branch ${branch}` : ""} resulted in ${status}`;
	return conditions ? `${head}:\n${conditions}` : `${head}.`;
}

function handle(req: WebhookRequest) {
	const p = req.payload();
	const project = p.path("project", "name").str();
	const branch = p.has("branch") ? p.at("branch").get("name").strOrNull() : null;
	return posts({ topic: branch ? `${project} / ${branch}` : project, content: body(p, branch) });
}

export const sonarqube: Integration = { name: "sonarqube", displayName: "Sonarqube", handle };
