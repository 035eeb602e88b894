// Sonarr (zerver/webhooks/sonarr/view.py): episodes grabbed, imported, upgraded and deleted,
// series renamed and deleted, health checks, in the series' topic.
import type { Wild } from "../payload";
import { posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";
import { setupMessage } from "../toolkit/common";

/** "Breaking Bad - 1x1 - Pilot". */
function episode(p: Wild): string {
	const e = p.at("episodes").item(0);
	return `${p.path("series", "title").str()} - ${e.at("seasonNumber").int()}x${e.at("episodeNumber").int()} - ${e.at("title").str()}`;
}

function body(p: Wild, event: string): string {
	const series = () => p.path("series", "title").str();
	if (event === "Test") return setupMessage("Sonarr");
	if (event === "Health") return `${p.at("message").str()}.`;
	if (event === "Rename") return `${series()} episodes have been renamed.`;
	if (event === "SeriesDelete") return `${series()} has been deleted.`;
	if (event === "Download" && p.has("isUpgrade")) {
		if (!p.at("isUpgrade").bool()) return `${episode(p)} has been imported.`;
		return `${episode(p)} has been upgraded from ${p.at("deletedFiles").item(0).at("quality").str()} to ${p.path("episodeFile", "quality").str()}.`;
	}
	if (event === "Grab") return `${episode(p)} has been grabbed.`;
	if (event === "EpisodeFileDelete" && p.has("deleteReason")) return p.at("deleteReason").str() === "upgrade" ? `${episode(p)} has been deleted due to quality upgrade.` : `${episode(p)} has been deleted.`;
	throw new UnsupportedEvent(event);
}

function handle(req: WebhookRequest) {
	const p = req.payload();
	const event = p.at("eventType").str();
	const content = body(p, event);
	const topic = event === "Test" ? "Sonarr - Test" : event === "Health" ? `Health ${p.at("level").str()}` : p.path("series", "title").str();
	return posts({ topic, content, event });
}

export const sonarr: Integration = { name: "sonarr", displayName: "Sonarr", handle };
