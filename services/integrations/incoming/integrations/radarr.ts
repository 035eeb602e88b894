// Radarr (zerver/webhooks/radarr/view.py): movies added, grabbed, imported, upgraded, renamed and
// deleted, health checks and updates, in the movie's topic.
import type { Wild } from "../payload";
import { posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";
import { setupMessage } from "../toolkit/common";

const REASONS: Record<string, string> = {
	missingFromDisk: "because it is missing from disk",
	manual: "manually",
	upgrade: "because an upgraded version exists",
	noLinkedEpisodes: "because it has no linked episodes",
	manualOverride: "via manual override",
};

function body(p: Wild, event: string, movie: () => string): string {
	switch (event) {
		case "Test":
			return setupMessage("Radarr");
		case "ApplicationUpdate":
			return `Radarr was updated from ${p.at("previousVersion").str()} to ${p.at("newVersion").str()}.`;
		case "Health":
			return `${p.at("message").str()}.`;
		case "Rename":
			return `The movie ${movie()} has been renamed.`;
		case "Grab":
			return `The movie ${movie()} has been grabbed.`;
		case "MovieDelete":
			return `The movie ${movie()} was deleted; its files were ${p.at("deletedFiles").bool() ? "also" : "not"} deleted.`;
		case "MovieFileDelete":
			return `A file with quality ${p.path("movieFile", "quality").str()} for the movie ${movie()} was deleted, ${REASONS[p.at("deleteReason").oneOf(Object.keys(REASONS))]}.`;
		case "MovieAdded":
			return `The movie ${movie()} was added.`;
		case "Download":
			if (p.has("isUpgrade")) {
				if (!p.at("isUpgrade").truthy) return `The movie ${movie()} has been imported.`;
				return `The movie ${movie()} has been upgraded from ${p.at("deletedFiles").item(0).at("quality").str()} to ${p.path("movieFile", "quality").str()}.`;
			}
	}
	throw new UnsupportedEvent(event);
}

function handle(req: WebhookRequest) {
	const p = req.payload();
	const event = p.at("eventType").str();
	const movie = () => p.path("movie", "title").str();
	const content = body(p, event, movie);
	const topic = event === "Test" ? "Radarr - Test" : event === "ApplicationUpdate" ? "Radarr - Application update" : event === "Health" ? `Health ${p.at("level").str()}` : movie();
	return posts({ topic, content, event });
}

export const radarr: Integration = { name: "radarr", displayName: "Radarr", handle };
