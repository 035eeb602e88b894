// Settings read from the environment (shared/config.ts): JITSI_SERVER_URL.
import { loadConfig } from "../../shared/config";

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
