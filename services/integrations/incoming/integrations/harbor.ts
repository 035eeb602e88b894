// Harbor (zerver/webhooks/harbor/view.py): images pushed and vulnerability scans completed, in the
// repository's topic; pulls, deletions and charts are ignored.
import type { Wild } from "../payload";
import { nothing, posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";

const IGNORED = new Set(["DOWNLOAD_CHART", "DELETE_CHART", "UPLOAD_CHART", "PULL_ARTIFACT", "DELETE_ARTIFACT", "SCANNING_FAILED"]);
const REPORT = "application/vnd.security.vulnerability.report; version=1.1";

function imageId(p: Wild): string {
	const name = p.path("event_data", "repository", "repo_full_name").str();
	const resource = p.path("event_data", "resources").item(0);
	return resource.has("tag") ? `${name}:${resource.at("tag").str()}` : `${name}@${resource.at("digest").str()}`;
}

function scanCompleted(p: Wild): string {
	const overview = p.path("event_data", "resources").item(0).at("scan_overview");
	if (!overview.has(REPORT)) throw new UnsupportedEvent("Unsupported harbor scanning webhook payload");
	const summaries = overview.path(REPORT, "summary", "summary").entries();
	const results = summaries.length ? summaries.map(([severity, count]) => `* ${severity}: **${count.int()}**\n`).join("") : "None\n";
	return `Image scan completed for \`${imageId(p)}\`. Vulnerabilities by severity:\n\n${results}`.trim();
}

function handle(req: WebhookRequest) {
	const p = req.payload();
	const operator = `**${p.at("operator").str()}**`;
	const event = p.at("type").str();
	const topic = p.path("event_data", "repository", "repo_full_name").str();
	if (IGNORED.has(event)) return nothing();
	if (event === "PUSH_ARTIFACT") return posts({ topic, content: `${operator} pushed image \`${imageId(p)}\``, event });
	if (event === "SCANNING_COMPLETED") return posts({ topic, content: scanCompleted(p), event });
	throw new UnsupportedEvent(event);
}

export const harbor: Integration = { name: "harbor", displayName: "Harbor", unquoteUrlParameters: true, handle };
