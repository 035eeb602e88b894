// The browser and operating system a new-login email names, read from the User-Agent as Zulip's
// zerver/signals.py reads them (the same checks in the same order).

export function deviceBrowser(userAgent: string): string | null {
	const ua = userAgent.toLowerCase();
	if (ua.includes("zulip")) return "Zulip";
	if (ua.includes("edge")) return "Edge";
	if (ua.includes("opera") || ua.includes("opr/")) return "Opera";
	if ((ua.includes("chrome") || ua.includes("crios")) && !ua.includes("chromium")) return "Chrome";
	if (ua.includes("firefox") && !ua.includes("seamonkey") && !ua.includes("chrome")) return "Firefox";
	if (ua.includes("chromium")) return "Chromium";
	if (ua.includes("safari") && !ua.includes("chrome") && !ua.includes("chromium")) return "Safari";
	if (ua.includes("msie") || ua.includes("trident")) return "Internet Explorer";
	return null;
}

export function deviceOs(userAgent: string): string | null {
	const ua = userAgent.toLowerCase();
	if (ua.includes("windows")) return "Windows";
	if (ua.includes("macintosh")) return "macOS";
	if (ua.includes("linux") && !ua.includes("android")) return "Linux";
	if (ua.includes("android")) return "Android";
	if (ua.includes("ios") || ua.includes("like mac os x")) return "iOS";
	if (ua.includes(" cros ")) return "ChromeOS";
	return null;
}
