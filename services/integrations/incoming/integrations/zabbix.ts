// Zabbix (zerver/webhooks/zabbix/view.py): a trigger's alert, in the topic of its host. A payload
// missing a field is a misconfigured Zabbix script: the bot's owner is told how to fix it.
import { posts, readingSetup, type Integration, type WebhookRequest } from "../integration";

const notice = ({ botName, supportEmail }: { botName: string; supportEmail: string }) => `Hi there! Your bot ${botName} just received a Zabbix payload that is missing
some data that Zulip requires. This usually indicates a configuration issue
in your Zabbix webhook settings. Please make sure that you set the
script correctly and provide all the required parameters
when configuring the Zabbix webhook. Contact ${supportEmail} if you
need further help!`;

function handle(req: WebhookRequest) {
	const p = req.json();
	const [hostname, severity, status, item, trigger, link] = readingSetup(notice, () => ["hostname", "severity", "status", "item", "trigger", "link"].map((k) => p.at(k).str()));
	return posts({ topic: hostname, content: `${status} (${severity}) alert on [${hostname}](${link}):\n* ${trigger}\n* ${item}` });
}

export const zabbix: Integration = { name: "zabbix", displayName: "Zabbix", handle };
