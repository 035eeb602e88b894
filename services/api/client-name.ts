// The name of the client making a request, as Zulip derives it from the User-Agent header
// (zerver/lib/user_agent.py): "ZulipTerminal/0.7.0 (Debian; 12)" is "ZulipTerminal". Messages
// record it (`client`); Zulip keeps 30 characters of it.
const USER_AGENT = /^(?<name>[^/ ]*[^0-9/(]*)(\/(?<version>[^/ ]*))?([ /].*)?$/s;

export function clientName(userAgent: string | undefined): string {
	if (userAgent === undefined) return "Unspecified";
	return (USER_AGENT.exec(userAgent)?.groups?.name ?? "Unspecified").slice(0, 30);
}
