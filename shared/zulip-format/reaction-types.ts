// An emoji's type (reactions, user statuses) as the API here names it and as Zulip's export
// format does: the server's own extra emoji are `service_extra_emoji` in this API (the spec's
// name) and `zulip_extra_emoji` in Zulip's tables, which Zulip's import requires.
const TO_FORMAT: Record<string, string> = { service_extra_emoji: "zulip_extra_emoji" };
const FROM_FORMAT: Record<string, string> = { zulip_extra_emoji: "service_extra_emoji" };

/** The type Zulip's tables hold for one of this server's. */
export const formatReactionType = (type: string): string => TO_FORMAT[type] ?? type;

/** This server's type for one of Zulip's tables, or undefined for a type neither knows. */
export function serverReactionType(type: string): string | undefined {
	if (type in FROM_FORMAT) return FROM_FORMAT[type];
	return type === "unicode_emoji" || type === "realm_emoji" ? type : undefined;
}
