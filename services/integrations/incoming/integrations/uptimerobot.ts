// UptimeRobot (zerver/webhooks/uptimerobot/view.py): a monitor going down or coming back up, in
// the monitor's topic. A payload missing a field means the alert contact was set up without
// UptimeRobot's variables: the bot's owner is told.
import { posts, readingSetup, UnsupportedEvent, type Integration, type WebhookRequest } from "../integration";

const notice = ({ botName, supportEmail }: { botName: string; supportEmail: string }) => `Hi there! Your bot ${botName} just received a UptimeRobot payload that is missing
some data that Zulip requires. This usually indicates a configuration issue
in your UptimeRobot webhook settings. Please make sure that you set the required parameters
when configuring the UptimeRobot webhook. Contact ${supportEmail} if you
need further help!`;

function handle(req: WebhookRequest) {
	const p = req.json();
	const message = readingSetup(notice, () => {
		const type = p.at("alert_type_friendly_name").str();
		const name = p.at("monitor_friendly_name").str();
		const head = `${name} (${p.at("monitor_url").str()})`;
		if (type === "Up") return { event: "up", content: `${head} is back UP (${p.at("alert_details").str()}).\nIt was down for ${p.at("alert_friendly_duration").str()}.`, topic: name };
		if (type === "Down") return { event: "down", content: `${head} is DOWN (${p.at("alert_details").str()}).`, topic: name };
		throw new UnsupportedEvent(type);
	});
	return posts(message);
}

export const uptimerobot: Integration = { name: "uptimerobot", displayName: "UptimeRobot", handle };
