// Lidarr (zerver/webhooks/lidarr/view.py): albums grabbed, tracks imported (the first 20 listed),
// renamed and retagged, in the artist's topic.
import type { Wild } from "../payload";
import { posts, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";
import { setupMessage } from "../toolkit/common";

const TRACKS_LIMIT = 20;

function tracks(p: Wild): string {
	const titles = p
		.at("tracks")
		.list()
		.map((t) => t.at("title").str());
	let out = titles
		.slice(0, TRACKS_LIMIT)
		.map((t) => `* ${t}\n`)
		.join("");
	if (titles.length > TRACKS_LIMIT) out += `[and ${titles.length - TRACKS_LIMIT} more tracks(s)]`;
	return out.trimEnd();
}

function body(p: Wild, event: string): string {
	const artist = () => p.path("artist", "name").str();
	if (event === "Test") return setupMessage("Lidarr");
	if (event === "Grab") return `The album ${p.at("albums").item(0).at("title").str()} by ${artist()} has been grabbed.`;
	if (event === "Rename") return `The artist ${artist()} has had its tracks renamed.`;
	if (event === "Retag") return `The artist ${artist()} has had its tracks retagged.`;
	if (event === "Download" && p.has("isUpgrade")) return `The following tracks by ${artist()} have been imported${p.at("isUpgrade").bool() ? " due to upgrade" : ""}:\n${tracks(p)}`;
	throw new UnsupportedEvent(event);
}

function handle(req: WebhookRequest) {
	const p = req.payload();
	const event = p.at("eventType").str();
	const content = body(p, event);
	return posts({ topic: event === "Test" ? "Lidarr - Test" : p.path("artist", "name").str(), content, event });
}

export const lidarr: Integration = { name: "lidarr", displayName: "Lidarr", handle };
