// Beeminder (zerver/webhooks/beeminder/view.py): a goal about to derail, in the topic "beekeeper";
// the hours left count from the server's clock.
import { clock } from "../../../../shared/clock";
import { posts, type Integration, type WebhookRequest } from "../integration";

function handle(req: WebhookRequest) {
	const goal = req.payload().at("goal");
	const pledge = goal.at("pledge").num();
	const hours = (goal.at("losedate").num() - clock.nowMs() / 1000) / 3600;
	const content = `You are going to derail from goal **${goal.at("slug").str()}** in **${hours.toFixed(1)} hours**. You need **${goal.at("limsum").str()}** to avoid derailing.\n* Pledge: **$${pledge}** ${pledge > 0 ? ":worried:" : ":relieved:"}`;
	return posts({ topic: "beekeeper", content });
}

export const beeminder: Integration = { name: "beeminder", displayName: "Beeminder", handle };
