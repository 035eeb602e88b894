// Settings read from the environment (shared/config.ts): JITSI_SERVER_URL, EVENT_QUEUE_MAX_EVENTS, SMTP, the push bouncer.
import { loadConfig, pushConfigured } from "../../shared/config";

const saved = process.env.JITSI_SERVER_URL;
afterEach(() => {
	if (saved === undefined) delete process.env.JITSI_SERVER_URL;
	else process.env.JITSI_SERVER_URL = saved;
});

test("JITSI_SERVER_URL: Zulip's default, or the server given, without trailing slashes", () => {
	delete process.env.JITSI_SERVER_URL;
	expect(loadConfig().jitsiServerUrl).toBe("https://meet.jit.si");
	process.env.JITSI_SERVER_URL = "";
	expect(loadConfig().jitsiServerUrl).toBe("https://meet.jit.si");
	process.env.JITSI_SERVER_URL = "https://jitsi.example.com/meet//";
	expect(loadConfig().jitsiServerUrl).toBe("https://jitsi.example.com/meet");
});

test("JITSI_SERVER_URL must be an http or https URL", () => {
	for (const bad of ["meet.jit.si", "ftp://meet.jit.si", "javascript:alert(1)"]) {
		process.env.JITSI_SERVER_URL = bad;
		expect(() => loadConfig()).toThrow(`JITSI_SERVER_URL must be an http or https URL, got "${bad}"`);
	}
});

test("EVENT_QUEUE_MAX_EVENTS: 10,000 by default, a positive integer otherwise", () => {
	const before = process.env.EVENT_QUEUE_MAX_EVENTS;
	try {
		delete process.env.EVENT_QUEUE_MAX_EVENTS;
		expect(loadConfig().eventQueueMaxEvents).toBe(10_000);
		process.env.EVENT_QUEUE_MAX_EVENTS = "250";
		expect(loadConfig().eventQueueMaxEvents).toBe(250);
		for (const bad of ["0", "-3", "many"]) {
			process.env.EVENT_QUEUE_MAX_EVENTS = bad;
			expect(() => loadConfig()).toThrow("EVENT_QUEUE_MAX_EVENTS");
		}
	} finally {
		if (before === undefined) delete process.env.EVENT_QUEUE_MAX_EVENTS;
		else process.env.EVENT_QUEUE_MAX_EVENTS = before;
	}
});

test("SMTP_URL and NOREPLY_EMAIL: files and noreply@<EXTERNAL_URL's host> by default; a bad URL stops the start without echoing it", () => {
	const before = { SMTP_URL: process.env.SMTP_URL, NOREPLY_EMAIL: process.env.NOREPLY_EMAIL, EXTERNAL_URL: process.env.EXTERNAL_URL };
	try {
		delete process.env.SMTP_URL;
		delete process.env.NOREPLY_EMAIL;
		process.env.EXTERNAL_URL = "https://chat.example.com";
		expect(loadConfig()).toMatchObject({ smtpUrl: "", noreplyEmail: "noreply@chat.example.com" });
		// The default follows an overridden EXTERNAL_URL (the tests' servers).
		expect(loadConfig({ externalUrl: "http://chat.test" }).noreplyEmail).toBe("noreply@chat.test");
		process.env.NOREPLY_EMAIL = "bot@mail.example.com";
		process.env.SMTP_URL = "smtps://user:pass@smtp.example.com:465";
		expect(loadConfig()).toMatchObject({ smtpUrl: "smtps://user:pass@smtp.example.com:465", noreplyEmail: "bot@mail.example.com" });
		for (const bad of ["smtp.example.com", "https://user:secret@smtp.example.com", "mailto:x@example.com"]) {
			process.env.SMTP_URL = bad;
			expect(() => loadConfig()).toThrow("SMTP_URL must be an smtp:// or smtps:// URL");
			expect(() => loadConfig()).not.toThrow(/secret/);
		}
	} finally {
		for (const [k, v] of Object.entries(before)) {
			if (v === undefined) delete process.env[k];
			else process.env[k] = v;
		}
	}
});

test("PUSH_NOTIFICATION_BOUNCER_URL: off by default; with it, ZULIP_ORG_ID (a UUID) and ZULIP_ORG_KEY are required", () => {
	const names = ["PUSH_NOTIFICATION_BOUNCER_URL", "ZULIP_ORG_ID", "ZULIP_ORG_KEY"] as const;
	const before = names.map((n) => process.env[n]);
	try {
		for (const n of names) delete process.env[n];
		expect(loadConfig()).toMatchObject({ pushBouncerUrl: "", zulipOrgId: "", zulipOrgKey: "" });
		expect(pushConfigured(loadConfig())).toBe(false);
		process.env.PUSH_NOTIFICATION_BOUNCER_URL = "https://push.example.com/";
		expect(() => loadConfig()).toThrow("ZULIP_ORG_ID must be the server's registration UUID");
		process.env.ZULIP_ORG_ID = "not-a-uuid";
		expect(() => loadConfig()).toThrow("ZULIP_ORG_ID");
		process.env.ZULIP_ORG_ID = "6CDE5F7A-1F7E-4978-9716-49F69EBFC9FE";
		expect(() => loadConfig()).toThrow("ZULIP_ORG_KEY must be set");
		process.env.ZULIP_ORG_KEY = "secret";
		expect(loadConfig()).toMatchObject({ pushBouncerUrl: "https://push.example.com", zulipOrgId: "6cde5f7a-1f7e-4978-9716-49f69ebfc9fe", zulipOrgKey: "secret" });
		expect(pushConfigured(loadConfig())).toBe(true);
		process.env.PUSH_NOTIFICATION_BOUNCER_URL = "push.example.com";
		expect(() => loadConfig()).toThrow("PUSH_NOTIFICATION_BOUNCER_URL must be an http or https URL");
	} finally {
		names.forEach((n, i) => {
			if (before[i] === undefined) delete process.env[n];
			else process.env[n] = before[i];
		});
	}
});
