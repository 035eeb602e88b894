// What every kind of integration shares (zerver/lib/webhooks/common.py): the message that says a
// webhook is set up, and values written as Python writes them into Zulip's messages.

export function setupMessage(integration: string, userName?: string | null): string {
	return `${integration} webhook has been successfully configured${userName ? ` by ${userName}` : ""}.`;
}

/** A value as Python's str() writes it (None, True, False). */
export function pyStr(v: unknown): string {
	if (v === null || v === undefined) return "None";
	if (v === true) return "True";
	if (v === false) return "False";
	return String(v);
}
