// Every setting the server reads from its environment, parsed in one place.
import path from "node:path";
import type { LogFormat } from "./logging";

function logFormat(raw: string): LogFormat {
	if (raw === "auto" || raw === "json" || raw === "pretty") return raw;
	throw new Error(`LOG_FORMAT must be auto, json or pretty, got "${raw}"`);
}

function int(name: string, fallback: number): number {
	const raw = process.env[name];
	if (raw === undefined || raw === "") return fallback;
	const n = Number(raw);
	if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
	return n;
}

function positive(name: string, fallback: number): number {
	const n = int(name, fallback);
	if (n < 1) throw new Error(`${name} must be a positive integer, got "${process.env[name]}"`);
	return n;
}

function str(name: string, fallback: string): string {
	const raw = process.env[name];
	return raw === undefined || raw === "" ? fallback : raw;
}

/** An http(s) URL, without trailing slashes. */
function url(name: string, fallback: string): string {
	const raw = str(name, fallback).replace(/\/+$/, "");
	if (!URL.canParse(raw) || !["http:", "https:"].includes(new URL(raw).protocol)) throw new Error(`${name} must be an http or https URL, got "${raw}"`);
	return raw;
}

/** PUSH_NOTIFICATION_BOUNCER_URL: an http(s) URL without trailing slashes, or empty (push off). */
function bouncerUrl(raw: string): string {
	if (!raw) return "";
	if (!URL.canParse(raw) || !["http:", "https:"].includes(new URL(raw).protocol)) throw new Error(`PUSH_NOTIFICATION_BOUNCER_URL must be an http or https URL, got "${raw}"`);
	return raw.replace(/\/+$/, "");
}

/** ZULIP_ORG_ID and ZULIP_ORG_KEY, required (a UUID and a key) once a bouncer is configured. */
function bouncerCredentials(url: string, id: string, key: string): { zulipOrgId: string; zulipOrgKey: string } {
	if (url && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw new Error("ZULIP_ORG_ID must be the server's registration UUID when PUSH_NOTIFICATION_BOUNCER_URL is set");
	if (url && !key) throw new Error("ZULIP_ORG_KEY must be set when PUSH_NOTIFICATION_BOUNCER_URL is set");
	return { zulipOrgId: id.toLowerCase(), zulipOrgKey: key };
}

/** An smtp: or smtps: URL (nodemailer's), or empty. */
function smtpUrl(raw: string): string {
	if (raw && (!URL.canParse(raw) || !["smtp:", "smtps:"].includes(new URL(raw).protocol))) throw new Error("SMTP_URL must be an smtp:// or smtps:// URL");
	return raw;
}

export interface Config {
	/** HTTP listen address and port of the gateway. */
	host: string;
	port: number;
	/** The public address clients use, e.g. https://chat.example.com (no trailing slash). */
	externalUrl: string;
	/** MongoDB URL; empty means "start the embedded store". */
	mongoUrl: string;
	/** Each service's database is `<dbPrefix>_<service>`. */
	dbPrefix: string;
	/** Where the embedded store keeps its data and where the first-start zuliprc is written. */
	dataDir: string;
	/** Port of the embedded store, when it is started by this process. */
	storePort: number;
	/** Moleculer transporter, e.g. nats://127.0.0.1:4222; empty means one process (local). */
	transporter: string;
	/** Services this node runs; empty means all of them. */
	services: string[];
	logLevel: string;
	/** LOG_FORMAT: "auto" (pretty on a terminal, JSON otherwise), "json" or "pretty". */
	logFormat: LogFormat;
	/** Largest accepted request body, in bytes. */
	bodyLimit: number;
	/** Per-user request budget in each window; 0 turns rate limiting off. */
	rateLimit: number;
	rateLimitWindowSeconds: number;
	/** Wrong or expired keys one address may try on the sign-up and confirmation pages per window; 0 turns the limit off. */
	signupKeyFailures: number;
	signupKeyWindowSeconds: number;
	/** Proxies (addresses or CIDR ranges) whose X-Forwarded-For names the client; empty trusts none. */
	trustedProxies: string[];
	/** First-start organization and owner. */
	realmName: string;
	ownerEmail: string;
	ownerName: string;
	ownerPassword: string;
	/** Where the file email backend writes outgoing messages (the backend when SMTP_URL is empty). */
	emailDir: string;
	/** SMTP_URL: nodemailer's connection URL (smtp://user:password@host:587, smtps://...); empty writes files into emailDir. */
	smtpUrl: string;
	/** NOREPLY_EMAIL: the sender address of every email the server sends (Zulip's NOREPLY_EMAIL_ADDRESS). */
	noreplyEmail: string;
	/** Attempts at sending one email before it is a dead letter. */
	emailMaxAttempts: number;
	/** The wait after a failed attempt, doubled after each further one (at most an hour). */
	emailRetrySeconds: number;
	/** How often each notifications replica looks for emails due (again); 0 turns the sweep off. */
	emailSweepSeconds: number;
	/** PUSH_NOTIFICATION_BOUNCER_URL: Zulip's mobile push notification service (e.g. https://push.zulipchat.com); empty turns push off. */
	pushBouncerUrl: string;
	/** ZULIP_ORG_ID: this server's registration UUID with the bouncer (HTTP basic auth user). */
	zulipOrgId: string;
	/** ZULIP_ORG_KEY: this server's registration secret with the bouncer (HTTP basic auth password). */
	zulipOrgKey: string;
	/** Attempts at one bouncer request (a registration, a notification) before it is given up. */
	pushMaxAttempts: number;
	/** The wait after a failed bouncer request, doubled after each further one (at most an hour). */
	pushRetrySeconds: number;
	/** How often each notifications replica looks for bouncer requests due (again); 0 turns the sweep off. */
	pushSweepSeconds: number;
	/** How often each notifications replica runs a digest pass (sending only on the organization's digest weekday); 0 turns digests off. */
	digestIntervalSeconds: number;
	/** Exposes the no-op route that `npm run bench` uses as its baseline. */
	benchRoutes: boolean;
	/** Server setting WEB_PUBLIC_STREAMS_ENABLED: whether channels may be web-public at all. */
	webPublicStreams: boolean;
	/** Server setting JITSI_SERVER_URL: the Jitsi Meet server video calls use (no trailing slash). */
	jitsiServerUrl: string;
	/** Port of this node's health endpoint (/healthz, /readyz) for probes; 0 turns it off. */
	healthPort: number;
	/** Port of this node's Prometheus endpoint (/metrics); 0 turns metrics off. */
	metricsPort: number;
	/** How long GET /events waits before answering with a heartbeat (Zulip: 45 s). */
	eventsHeartbeatSeconds: number;
	/** An event queue nobody reads for this long is removed (Zulip: 10 minutes). */
	eventQueueTimeoutSeconds: number;
	/** An event queue holding this many unread events is dropped when another arrives (at least 1). */
	eventQueueMaxEvents: number;
	/** When each scheduling replica looks for due scheduled messages (node-cron, with seconds); "off" turns it off. */
	schedulingCron: string;
	/** A delivery claimed this long ago and not finished (its replica died) is claimed again. */
	schedulingClaimTimeoutSeconds: number;
	/** When each users replica announces members past the waiting period in role:fullmembers (node-cron); "off" turns it off. */
	fullMembersCron: string;
	/**
	 * Networks (CIDRs) outgoing webhook bots may reach though private, loopback, link-local or
	 * cloud metadata addresses, e.g. 127.0.0.0/8 for a bot server on the same host.
	 */
	outgoingWebhookAllowedNetworks: string[];
	/** Zulip's OUTGOING_WEBHOOK_TIMEOUT_SECONDS: how long one call to a bot's server may take. */
	outgoingWebhookTimeoutSeconds: number;
	/** The first retry of a call that timed out or could not connect waits this long; each next one twice as long. */
	outgoingWebhookRetryMs: number;
	/** Server setting INVITATION_LINK_VALIDITY_MINUTES: how long an invitation lasts when the inviter does not say. */
	invitationLinkValidityMinutes: number;
	/** Invitations an organization may send per UTC day (Zulip's max_invites); 0 turns the limit off. */
	invitesDailyLimit: number;
	/** Seats (active human accounts) an organization may fill; 0 means no limit. */
	seatLimit: number;
	/** Server setting USER_STATE_SIZE_LIMIT: the characters (keys and values) one bot may keep in its bot storage. */
	botStorageLimit: number;
	/** Server setting MAX_FILE_UPLOAD_SIZE: the largest file `POST /user_uploads` takes, in MiB. */
	maxFileUploadSizeMib: number;
	/** The organization's upload quota (all its uploads together) in MiB; 0 means none, as Zulip's self-hosted default. */
	uploadQuotaMib: number;
}

/** Zulip's push_notifications_configured: a bouncer and this server's credentials with it. */
export function pushConfigured(c: Pick<Config, "pushBouncerUrl" | "zulipOrgId" | "zulipOrgKey">): boolean {
	return Boolean(c.pushBouncerUrl && c.zulipOrgId && c.zulipOrgKey);
}

/** Reads the environment; `overrides` win (tests use them for a fresh database per file). */
export function loadConfig(overrides: Partial<Config> = {}): Config {
	const port = int("PORT", 9991);
	const externalUrl = str("EXTERNAL_URL", `http://localhost:${port}`).replace(/\/+$/, "");
	const dataDir = path.resolve(str("DATA_DIR", "data"));
	const config: Omit<Config, "noreplyEmail"> & { noreplyEmail?: string } = {
		host: str("HOST", "0.0.0.0"),
		port,
		externalUrl,
		mongoUrl: str("MONGO_URL", ""),
		dbPrefix: str("DB_PREFIX", "chat"),
		dataDir,
		emailDir: path.resolve(str("EMAIL_DIR", path.join(dataDir, "emails"))),
		smtpUrl: smtpUrl(str("SMTP_URL", "")),
		emailMaxAttempts: positive("EMAIL_MAX_ATTEMPTS", 6),
		emailRetrySeconds: int("EMAIL_RETRY_SECONDS", 30),
		emailSweepSeconds: int("EMAIL_SWEEP_SECONDS", 10),
		pushBouncerUrl: bouncerUrl(str("PUSH_NOTIFICATION_BOUNCER_URL", "")),
		...bouncerCredentials(str("PUSH_NOTIFICATION_BOUNCER_URL", ""), str("ZULIP_ORG_ID", ""), str("ZULIP_ORG_KEY", "")),
		pushMaxAttempts: positive("PUSH_MAX_ATTEMPTS", 4),
		pushRetrySeconds: int("PUSH_RETRY_SECONDS", 30),
		pushSweepSeconds: int("PUSH_SWEEP_SECONDS", 10),
		digestIntervalSeconds: int("DIGEST_INTERVAL_SECONDS", 3600),
		storePort: int("STORE_PORT", 27117),
		transporter: str("TRANSPORTER", ""),
		services: str("SERVICES", "")
			.split(",")
			.map((s) => s.trim())
			.filter(Boolean),
		logLevel: str("LOG_LEVEL", "info"),
		logFormat: logFormat(str("LOG_FORMAT", "auto")),
		bodyLimit: int("BODY_LIMIT_BYTES", 5 * 1024 * 1024),
		rateLimit: int("RATE_LIMIT", 200),
		rateLimitWindowSeconds: int("RATE_LIMIT_WINDOW_SECONDS", 60),
		signupKeyFailures: int("SIGNUP_KEY_FAILURES", 20),
		signupKeyWindowSeconds: positive("SIGNUP_KEY_WINDOW_SECONDS", 600),
		trustedProxies: str("TRUSTED_PROXIES", "")
			.split(",")
			.map((s) => s.trim())
			.filter(Boolean),
		realmName: str("REALM_NAME", "Team chat"),
		ownerEmail: str("OWNER_EMAIL", `owner@${new URL(externalUrl).hostname}`),
		ownerName: str("OWNER_NAME", "Organization owner"),
		ownerPassword: str("OWNER_PASSWORD", ""),
		benchRoutes: str("BENCH_ROUTES", "") === "1",
		webPublicStreams: ["1", "true"].includes(str("WEB_PUBLIC_STREAMS_ENABLED", "").toLowerCase()),
		jitsiServerUrl: url("JITSI_SERVER_URL", "https://meet.jit.si"),
		healthPort: int("HEALTH_PORT", 0),
		metricsPort: int("METRICS_PORT", 0),
		eventsHeartbeatSeconds: int("EVENTS_HEARTBEAT_SECONDS", 45),
		eventQueueTimeoutSeconds: int("EVENT_QUEUE_TIMEOUT_SECONDS", 600),
		eventQueueMaxEvents: positive("EVENT_QUEUE_MAX_EVENTS", 10_000),
		schedulingCron: str("SCHEDULING_CRON", "*/5 * * * * *"),
		schedulingClaimTimeoutSeconds: int("SCHEDULING_CLAIM_TIMEOUT_SECONDS", 60),
		fullMembersCron: str("FULL_MEMBERS_CRON", "0 0 1 * * *"),
		outgoingWebhookAllowedNetworks: str("OUTGOING_WEBHOOK_ALLOWED_NETWORKS", "")
			.split(",")
			.map((s) => s.trim())
			.filter(Boolean),
		outgoingWebhookTimeoutSeconds: positive("OUTGOING_WEBHOOK_TIMEOUT_SECONDS", 10),
		outgoingWebhookRetryMs: positive("OUTGOING_WEBHOOK_RETRY_MS", 10_000),
		invitationLinkValidityMinutes: int("INVITATION_LINK_VALIDITY_MINUTES", 14_400),
		invitesDailyLimit: int("INVITES_DAILY_LIMIT", 100),
		seatLimit: int("SEAT_LIMIT", 0),
		botStorageLimit: int("USER_STATE_SIZE_LIMIT", 10_000_000),
		maxFileUploadSizeMib: positive("MAX_FILE_UPLOAD_SIZE_MIB", 25),
		uploadQuotaMib: int("UPLOAD_QUOTA_MIB", 0),
		...overrides,
	};
	// The sender's default follows EXTERNAL_URL as overridden.
	return { ...config, noreplyEmail: config.noreplyEmail ?? str("NOREPLY_EMAIL", `noreply@${new URL(config.externalUrl).hostname}`) };
}
