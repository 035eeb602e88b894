// The notifications service's pure rules: the wait between attempts, the Message-ID derived from a
// key, and the browser and system a new-login email names (Zulip's zerver/signals.py).
import { retryWaitSeconds } from "../../services/notifications/outbox/delivery";
import { messageIdFor } from "../../services/notifications/outbox/outbox";
import { deviceBrowser, deviceOs } from "../../services/notifications/login-notice/device";

test("the wait doubles after each failed attempt, from EMAIL_RETRY_SECONDS, at most an hour", () => {
	expect([1, 2, 3, 4, 5, 6].map((n) => retryWaitSeconds(30, n))).toEqual([30, 60, 120, 240, 480, 960]);
	expect(retryWaitSeconds(30, 20)).toBe(3600);
	expect(retryWaitSeconds(0, 5)).toBe(0);
});

test("a key has one Message-ID, in the sender's domain; other keys have others", () => {
	const id = messageIdFor("invitation:1", "noreply@mail.example.com");
	expect(id).toMatch(/^<[0-9a-f]{32}@mail\.example\.com>$/);
	expect(messageIdFor("invitation:1", "noreply@mail.example.com")).toBe(id);
	expect(messageIdFor("invitation:2", "noreply@mail.example.com")).not.toBe(id);
	expect(messageIdFor("k", "not-an-address")).toMatch(/@localhost>$/);
});

test("browser and operating system from the User-Agent, as Zulip reads them", () => {
	const cases: Array<[string, string | null, string | null]> = [
		["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36", "Chrome", "Windows"],
		["Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15", "Safari", "macOS"],
		["Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox", "Linux"],
		["Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36", "Chrome", "Android"],
		["Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0 Mobile/15E148 Safari/604.1", "Chrome", "iOS"],
		["ZulipMobile/27.214 (Android 14)", "Zulip", "Android"],
		["Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36 Edg/120.0", "Chrome", "Windows"],
		["Mozilla/5.0 (Windows NT 10.0) Edge/18.19041", "Edge", "Windows"],
		["Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36", "Chrome", "ChromeOS"],
		["curl/8.5.0", null, null],
		["", null, null],
	];
	for (const [ua, browser, os] of cases) expect([ua, deviceBrowser(ua), deviceOs(ua)]).toEqual([ua, browser, os]);
});
