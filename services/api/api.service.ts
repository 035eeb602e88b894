// The gateway: the only HTTP surface. It maps `METHOD /api/v1/path` onto one action through the
// route table, authenticates, limits request rates, converts parameters, calls the action and
// wraps its result or error in Zulip's envelope. Services never see HTTP.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { Errors, type Context, type ServiceSchema } from "moleculer";
import ApiGateway from "moleculer-web";
import type { Config } from "../../shared/config";
import { clock } from "../../shared/clock";
import { call, type Identity, type Meta, type OpenedFile } from "../../shared/actions";
import { convertParams, type ParamSchema } from "../../shared/params";
import { adminRequired, badRequest, guestNotAllowed, methodNotAllowed, notFound, rateLimited, renderError, apiError, unauthorized } from "../../shared/errors";
import { queryParams, send, sendJson, sendText, successJson, type Headers } from "./responses";
import { Drain } from "./drain";
import { confirmEmailPage } from "./email-confirm-page";
import { isAdmin, isGuest } from "../../shared/roles";
import { routes, benchRoutes, type Route } from "./routes";
import { Router } from "./router";
import { RateLimiter } from "./rate-limit";
import { CredentialCache, parseBasicAuth } from "./auth";
import { registerAction } from "./register";
import { createHttpServer, dropRestOfBody } from "./http-server";
import { abortUpload, openDownload, receiveOptionalUpload, receiveUpload, sendOpened, UPLOADS_PATH } from "./file-routes";
import { AVATAR_PATH, openPublicImage, PUBLIC_IMAGES_PATH, redirectToAvatar } from "./image-routes";
import { signupPage } from "./signup-page";
import { logErrorAnswer, withRequestId } from "./request-log";
import { sendEmojiData } from "./static-files";
import { EMOJI_DATA_DIR } from "../../shared/emoji-data";
import { resetPasswordPage, resetRequestPage } from "./password-reset-page";
import { unsubscribePage } from "./unsubscribe-page";
import { noticeLogin } from "./login-notice";
import { PageGuard } from "./page-guard";
import { clientAddressOf } from "./client-address";
import { observeHttp } from "./http-metrics";
import { MULTIPART_TYPE, multipartFields } from "./multipart";
import { clientName } from "./client-name";
import { callWrite, honoursKeys, requestKey } from "./lost-answers";
import { isTusPath, TUS_HEADERS, tusEndpoint } from "./tus-endpoint";
import { isWebhookPath, readBody, webhookCall, webhookSender } from "./webhook-endpoint";
import { DISCOVERY_MS } from "../../shared/node-cache";

const PREFIX = "/api/v1";

type Req = IncomingMessage & {
	body?: unknown;
	parsedUrl?: string;
	$ctx: Context<unknown, Meta>;
};

export function apiService(config: Config): ServiceSchema {
	const router = new Router(config.benchRoutes ? [...routes, ...benchRoutes] : routes);
	const limiter = new RateLimiter(config.rateLimit, config.rateLimitWindowSeconds * 1000, () => clock.nowMs());
	const credentials = new CredentialCache(60_000, () => clock.nowMs());
	const clientAddress = clientAddressOf(config.trustedProxies);
	/** The checks of the pages opened by a key in their URL: wrong keys per address, cross-site posts. */
	const pageGuard = new PageGuard(config, clientAddress);

	async function authenticate(req: Req): Promise<Identity> {
		const header = req.headers.authorization;
		const known = header === undefined ? undefined : credentials.get(header);
		if (known) return known;
		const creds = parseBasicAuth(header);
		const user = await call(req.$ctx, "users.authenticate", { email: creds.email, api_key: creds.apiKey });
		credentials.set(header!, user);
		return user;
	}

	/** Spends one request of `key`'s budget; throws RATE_LIMIT_HIT when it is spent. */
	function checkRate(key: string, headers: Headers): void {
		if (!limiter.enabled) return;
		const state = limiter.hit(key);
		headers["X-RateLimit-Limit"] = state.limit;
		headers["X-RateLimit-Remaining"] = state.remaining;
		headers["X-RateLimit-Reset"] = state.reset;
		if (state.retryAfter !== undefined) throw rateLimited(state.retryAfter);
	}

	const drain = new Drain();

	/** The whole pipeline for one request under /api/v1. */
	function handle(this: any, req: Req, res: ServerResponse): Promise<void> {
		return drain.track(res, () => pipeline.call(this, req, res));
	}

	/** The replica of an action on the node an owner parameter names (`<node ID>:<rest>`), if it is up. */
	function ownerEndpoint(broker: any, action: string, value: unknown): unknown {
		if (typeof value !== "string" || !value.includes(":")) return undefined;
		const node = broker.registry.nodes.get(value.slice(0, value.lastIndexOf(":")));
		return node?.available ? (broker.registry.getActionEndpointByNodeId(action, node.id) ?? undefined) : undefined;
	}

	async function pipeline(this: any, req: Req, res: ServerResponse): Promise<void> {
		const rateHeaders: Headers = {};
		try {
			const url = req.url ?? "";
			const pathname = req.parsedUrl ?? url.split("?")[0];
			const path = pathname.startsWith(PREFIX) ? pathname.slice(PREFIX.length) : pathname;
			const match = router.match(req.method ?? "GET", path || "/");
			if (match.kind === "none") throw notFound();
			if (match.kind === "wrong-method") {
				rateHeaders.Allow = match.allowed.join(", ");
				throw methodNotAllowed(match.allowed);
			}
			const { route, pathParams } = match;

			let user: Identity | undefined;
			if (route.auth !== false) {
				try {
					user = await authenticate(req);
				} catch (err) {
					// Failed attempts count against the client's address, so keys cannot be guessed at speed.
					checkRate(`addr:${clientAddress(req)}`, rateHeaders);
					throw err;
				}
			}
			checkRate(user ? `user:${user.user_id}` : `addr:${clientAddress(req)}`, rateHeaders);
			if (route.admin && !(user && isAdmin(user.role))) throw adminRequired();
			if (route.nonGuest && user && isGuest(user.role)) throw guestNotAllowed();
			if (route.botOnly && user && !user.is_bot) throw badRequest("Must be a bot user");
			if (route.humanOnly && user?.is_bot) throw badRequest("This endpoint does not accept bot requests.");

			const meta: Meta = { user, client: clientName(req.headers["user-agent"]) };
			// A write's calls carry a key of their own, the same if called again (lost-answers.ts).
			const write = route.method !== "GET";
			if (write) meta.request_key = requestKey(route.action);
			if (streamsBody(route, req)) {
				await fileEndpoint.call(this, req, res, route, queryParams(url), pathParams, meta, rateHeaders);
				return;
			}
			const body = Buffer.isBuffer(req.body)
				? await multipartFields(req.body, req.headers["content-type"] ?? "")
				: req.body && typeof req.body === "object"
					? (req.body as Record<string, unknown>)
					: {};
			const raw = { ...queryParams(url), ...body, ...pathParams };
			const owned = route.owner ? ownerEndpoint(this.broker, route.action, raw[route.owner]) : undefined;
			const endpoint = owned || this.broker.findNextActionEndpoint(route.action);
			if (endpoint instanceof Error) throw apiError(503, "SERVICE_UNAVAILABLE", "Service temporarily unavailable");
			const { params, ignored } = convertParams(endpoint.action.params as ParamSchema | undefined, raw);

			const call = (target: any) => req.$ctx.call(target, params, { meta }) as Promise<Record<string, unknown> | undefined>;
			// An owner that died a moment ago is still listed: any replica then answers for its resource.
			const first = () =>
				owned
					? call(endpoint).catch((err: unknown) => {
							if (err instanceof Errors.MoleculerClientError) throw err;
							return call(route.action);
						})
					: call(endpoint);
			// Called again (a keyed write whose answer was lost), the action goes to any replica.
			const data = await (write ? callWrite(this.broker, route.action, honoursKeys(endpoint), (again) => (again ? call(route.action) : first())) : first());
			if (route.login) await noticeLogin(req.$ctx, req, data, clientAddress(req), this.logger);
			sendJson(res, 200, successJson(data, ignored), rateHeaders);
		} catch (err) {
			sendError(this, res, err, rateHeaders);
		}
	}

	/**
	 * A file endpoint (a route marked `file`): the parameters from the query and path, the file
	 * streamed from the body into the uploads service, then the action completes it. Whatever is
	 * refused, the rest of the body is dropped and what was stored removed.
	 */
	async function fileEndpoint(this: any, req: Req, res: ServerResponse, route: Route, query: Record<string, unknown>, pathParams: Record<string, string>, meta: Meta, rateHeaders: Headers): Promise<void> {
		const action = route.action;
		let uploadId: string | undefined;
		try {
			const endpoint = this.broker.findNextActionEndpoint(action);
			if (endpoint instanceof Error) throw apiError(503, "SERVICE_UNAVAILABLE", "Service temporarily unavailable");
			const schema = endpoint.action.params as ParamSchema | undefined;
			if (route.file === "optional") {
				// The body's fields over the query's, the path's over both, as on every route.
				const got = await receiveOptionalUpload(req.$ctx, req, action, meta, { ...query, ...pathParams }, (fields) => convertParams(schema, { ...query, ...fields, ...pathParams }));
				uploadId = got.upload?.upload_id;
				const { params, ignored } = convertParams(schema, { ...query, ...got.fields, ...pathParams });
				const data = (await req.$ctx.call(action, params, { meta: got.upload ? { ...meta, upload: got.upload } : meta })) as Record<string, unknown> | undefined;
				sendJson(res, 200, successJson(data, [...ignored, ...got.ignored]), rateHeaders);
				return;
			}
			const { params, ignored } = convertParams(schema, { ...query, ...pathParams });
			const { upload, fields } = await receiveUpload(req.$ctx, req, action, meta, params);
			uploadId = upload.upload_id;
			const data = (await req.$ctx.call(action, params, { meta: { ...meta, upload } })) as Record<string, unknown> | undefined;
			sendJson(res, 200, successJson(data, [...ignored, ...fields]), rateHeaders);
		} catch (err) {
			if (uploadId) await abortUpload(req.$ctx, uploadId, meta);
			sendError(this, res, err, rateHeaders);
			if (!req.complete) dropRestOfBody(req);
		}
	}

	/**
	 * Sends the stored file `open` names (it checks the caller and spends the rate budget), counted
	 * among the requests a drain waits for; a failure once the headers are out cuts the connection.
	 */
	function sendStoredFile(svc: any, req: Req, res: ServerResponse, open: (rateHeaders: Headers) => Promise<OpenedFile>) {
		void drain.track(res, async () => {
			const rateHeaders: Headers = {};
			try {
				await sendOpened(req.$ctx, req, res, await open(rateHeaders));
			} catch (err) {
				if (res.headersSent) res.destroy();
				else sendError(svc, res, err, rateHeaders);
			}
		});
	}

	/** A download under /user_uploads (file-routes.ts). */
	function download(this: any, req: Req, res: ServerResponse) {
		sendStoredFile(this, req, res, async (rateHeaders) => {
			let user: Identity | undefined;
			const path = (req.parsedUrl ?? req.url ?? "").slice(UPLOADS_PATH.length);
			const file = await openDownload(req.$ctx, path, async () => (user = await authenticate(req)), req.headers.authorization !== undefined);
			checkRate(user ? `user:${user.user_id}` : `addr:${clientAddress(req)}`, rateHeaders);
			return file;
		});
	}

	/** A custom emoji's or avatar's image under /user_avatars (image-routes.ts), without credentials. */
	function publicImage(this: any, req: Req, res: ServerResponse) {
		sendStoredFile(this, req, res, async (rateHeaders) => {
			checkRate(`addr:${clientAddress(req)}`, rateHeaders);
			return openPublicImage(req.$ctx, (req.parsedUrl ?? req.url ?? "").slice(PUBLIC_IMAGES_PATH.length));
		});
	}

	/** GET /avatar/{user_id_or_email}[/medium] (image-routes.ts): a redirect to the avatar. */
	function avatar(this: any, req: Req, res: ServerResponse) {
		void drain.track(res, async () => {
			const rateHeaders: Headers = {};
			try {
				const user = await authenticate(req).catch((err: unknown) => {
					checkRate(`addr:${clientAddress(req)}`, rateHeaders);
					throw err;
				});
				checkRate(`user:${user.user_id}`, rateHeaders);
				const url = (req as Req & { originalUrl?: string }).originalUrl ?? req.url ?? "";
				await redirectToAvatar(req.$ctx, res, url.slice(AVATAR_PATH.length), user, rateHeaders);
			} catch (err) {
				sendError(this, res, err, rateHeaders);
			}
		});
	}

	function sendError(svc: any, res: ServerResponse, err: unknown, extraHeaders: Headers = {}): void {
		const r = renderError(err);
		logErrorAnswer(svc.logger, res, r.status, r.body.code, err, routeLabel);
		send(res, r.status, r.body, { ...extraHeaders, ...r.headers });
	}

	let tus: ReturnType<typeof tusEndpoint> | undefined;

	/**
	 * A request to /api/v1/tus (tus-endpoint.ts), taken before moleculer-web: authenticated as any
	 * API request (OPTIONS, the protocol's discovery, needs no credentials), then the tus server's.
	 * A failed authentication is Zulip's "Unauthenticated upload", whatever the credentials' fault.
	 */
	function tusRequest(svc: any, req: Req, res: ServerResponse) {
		void drain.track(res, async () => {
			const rateHeaders: Headers = { ...TUS_HEADERS };
			try {
				req.$ctx = svc.broker.ContextFactory.create(svc.broker, null, {}, {});
				let user: Identity | undefined;
				if (req.method !== "OPTIONS") {
					user = await authenticate(req).catch((err: unknown) => {
						checkRate(`addr:${clientAddress(req)}`, rateHeaders);
						throw renderError(err).status >= 500 ? err : unauthorized("Unauthenticated upload");
					});
				}
				checkRate(user ? `user:${user.user_id}` : `addr:${clientAddress(req)}`, rateHeaders);
				tus ??= tusEndpoint(svc.logger);
				await tus.handle(req, res, { caller: req.$ctx, meta: { user, client: clientName(req.headers["user-agent"]) } });
			} catch (err) {
				if (res.headersSent) res.destroy();
				else sendError(svc, res, err, rateHeaders);
				if (!req.complete) dropRestOfBody(req);
			}
		});
	}

	/**
	 * A request to /api/v1/external/<integration> (webhook-endpoint.ts), taken before moleculer-web:
	 * the body read whole as sent, the bot authenticated by its key, then the integrations service
	 * answers, as JSON in Zulip's envelope or as the integration's own answer.
	 */
	function webhookRequest(svc: any, req: Req, res: ServerResponse) {
		void drain.track(res, async () => {
			const rateHeaders: Headers = {};
			try {
				req.$ctx = svc.broker.ContextFactory.create(svc.broker, null, {}, {});
				const url = req.url ?? "";
				const pathname = url.split("?")[0];
				const query = queryParams(url);
				const body = await readBody(req, config.bodyLimit);
				const user = await webhookSender(req.$ctx, req, query, body).catch((err: unknown) => {
					checkRate(`addr:${clientAddress(req)}`, rateHeaders);
					throw err;
				});
				checkRate(`user:${user.user_id}`, rateHeaders);
				const answer = await call(req.$ctx, "integrations.incoming", webhookCall(req, pathname, query, body), { meta: { user } });
				if (answer.raw?.text !== undefined) sendText(res, answer.raw.status, answer.raw.text, rateHeaders);
				else if (answer.raw) send(res, answer.raw.status, answer.raw.json, rateHeaders);
				else sendJson(res, 200, successJson(answer.data, []), rateHeaders);
			} catch (err) {
				sendError(svc, res, err, rateHeaders);
				if (!req.complete) dropRestOfBody(req);
			}
		});
	}

	/** The pages' forms: URL-encoded from browsers, JSON from API clients. */
	const pageBodyParsers = {
		json: { strict: false, limit: config.bodyLimit },
		urlencoded: { extended: false, limit: config.bodyLimit, parameterLimit: 100 },
	};
	/** A page outside the API (sign-up, password reset), counted among the requests a drain waits for. */
	const page = (render: (req: Req, res: ServerResponse, guard: PageGuard) => Promise<void>) =>
		function (this: any, req: Req, res: ServerResponse) {
			void drain.track(res, () => render(req, res, pageGuard).catch((err: unknown) => sendError(this, res, err)));
		};
	/** An invitation's sign-up page (signup-page.ts). */
	const signup = (kind: "invitation" | "link") => page((req, res, guard) => signupPage(req, res, kind, guard));
	const resetRequest = page(resetRequestPage);
	const resetPassword = page(resetPasswordPage);
	const unsubscribe = page(unsubscribePage);

	/** A request's route for the HTTP metrics: its action under /api/v1, else "other". */
	const routeLabel = (method: string, url: string): string => {
		const pathname = url.split("?")[0];
		if (isTusPath(pathname)) return "uploads.tus";
		if (isWebhookPath(pathname)) return "integrations.incoming";
		if (!pathname.startsWith(PREFIX)) return "other";
		const match = router.match(method, pathname.slice(PREFIX.length) || "/");
		return match.kind === "found" ? match.route.action : "unmatched";
	};

	/** A request to a file endpoint, whose body is streamed rather than read whole. */
	const isFileRequest = (req: IncomingMessage): boolean => {
		// moleculer-web rewrites `url` below a route's path; `originalUrl` keeps the whole.
		const pathname = ((req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? "").split("?")[0];
		if (isTusPath(pathname)) return true;
		if (!pathname.startsWith(PREFIX)) return false;
		const match = router.match(req.method ?? "GET", pathname.slice(PREFIX.length) || "/");
		return match.kind === "found" && streamsBody(match.route, req);
	};
	const isMultipart = (req: IncomingMessage) => (req.headers["content-type"] ?? "").toLowerCase().startsWith(MULTIPART_TYPE);
	/** Whether a route's body is streamed (file-upload.ts): a file endpoint's, and a multipart one where the file is optional. */
	const streamsBody = (route: Route, req: IncomingMessage) => route.file === true || (route.file === "optional" && isMultipart(req));

	const dispatch = function (this: any, req: Req, res: ServerResponse) {
		// moleculer-web does not await function aliases: handle() catches everything itself.
		void handle.call(this, req, res);
	};

	return {
		name: "api",
		mixins: [ApiGateway],
		settings: {
			port: config.port,
			ip: config.host,
			log4XXResponses: false,
			logRequest: null,
			logResponse: null,
			routes: [
				{
					path: PREFIX,
					mappingPolicy: "restrict",
					mergeParams: true,
					bodyParsers: {
						json: { strict: false, limit: config.bodyLimit },
						urlencoded: { extended: false, limit: config.bodyLimit, parameterLimit: 10_000 },
						// Read here as a whole and parsed by the pipeline (multipart.ts), except a file
						// endpoint's, which is streamed (file-upload.ts).
						raw: { type: (req: IncomingMessage) => isMultipart(req) && !isFileRequest(req), limit: config.bodyLimit },
					},
					aliases: {
						"GET /": dispatch,
						"GET /*path": dispatch,
						"POST /*path": dispatch,
						"PATCH /*path": dispatch,
						"PUT /*path": dispatch,
						"DELETE /*path": dispatch,
					},
				},
				// Not part of the API: the sign-up pages invitations link to (before /accounts, which
				// would take the path otherwise).
				...(
					[
						["/accounts/do_confirm", signup("invitation")],
						["/join", signup("link")],
					] as const
				).map(([path, handler]) => ({
					path,
					mappingPolicy: "restrict",
					bodyParsers: pageBodyParsers,
					aliases: { "GET /:key": handler, "POST /:key": handler },
				})),
				{
					// Not part of the API: the password reset pages (password-reset-page.ts).
					path: "/accounts/password/reset",
					mappingPolicy: "restrict",
					bodyParsers: pageBodyParsers,
					aliases: { "GET /": resetRequest, "POST /": resetRequest, "GET /:key": resetPassword, "POST /:key": resetPassword },
				},
				{
					// Not part of the API: the page an email's unsubscribe link opens (unsubscribe-page.ts).
					path: "/accounts/unsubscribe",
					mappingPolicy: "restrict",
					bodyParsers: false,
					aliases: { "GET /:type/:key": unsubscribe },
				},
				{
					// Downloads: outside /api/v1, as Zulip serves them.
					path: UPLOADS_PATH,
					mappingPolicy: "restrict",
					bodyParsers: false,
					aliases: { "GET /*path": download },
				},
				{
					// Custom emoji and avatars: outside /api/v1, as Zulip serves them (image-routes.ts).
					path: PUBLIC_IMAGES_PATH,
					mappingPolicy: "restrict",
					bodyParsers: false,
					aliases: { "GET /*path": publicImage },
				},
				{
					path: AVATAR_PATH,
					mappingPolicy: "restrict",
					bodyParsers: false,
					aliases: { "GET /*path": avatar },
				},
				{
					// The emoji data file server_emoji_data_url names (static-files.ts).
					path: EMOJI_DATA_DIR,
					mappingPolicy: "restrict",
					bodyParsers: false,
					aliases: {
						"GET /:file"(this: any, req: Req & { $params?: Record<string, string> }, res: ServerResponse) {
							if (!sendEmojiData(req.$params?.file, req, res)) sendError(this, res, notFound("File not found"));
						},
					},
				},
				{
					// Not part of the API: the page a confirmation email links to.
					path: "/accounts",
					mappingPolicy: "restrict",
					bodyParsers: false,
					aliases: {
						"GET /confirm_new_email/:confirmation_key"(req: Req & { $params?: Record<string, string> }, res: ServerResponse) {
							void drain.track(res, () => confirmEmailPage(req, req.$params?.confirmation_key ?? "", res, pageGuard));
						},
					},
				},
			],
			// Errors raised before our pipeline runs: unknown paths outside /api/v1, bodies that do
			// not parse or are too large.
			onError(this: any, _req: IncomingMessage, res: ServerResponse, err: unknown) {
				sendError(this, res, err);
			},
		},
		actions: {
			register: registerAction,
		},
		methods: {
			/**
			 * moleculer-web's, except for this service's function aliases: each answers the request
			 * itself and never calls `next`, so moleculer-web's promise for it would stay pending
			 * (and keep the request alive) until collected. Called directly, they cost no promise.
			 */
			aliasHandler(this: any, req: Req, res: ServerResponse, alias: { handler?: unknown; action?: string }) {
				if (typeof alias.handler === "function" && !alias.action) {
					alias.handler.call(this, req, res);
					return true;
				}
				return (ApiGateway.methods as any).aliasHandler.call(this, req, res, alias);
			},
			/** moleculer-web's, which logs every error it meets at error level ("Request error!"): ours. */
			errorHandler(this: any, _req: IncomingMessage, res: ServerResponse, err: unknown) {
				sendError(this, res, err);
			},
			/** The path alone: the query string is parsed by the pipeline (queryParams), once, flat. */
			parseQueryString(req: IncomingMessage) {
				const url = req.url ?? "";
				const i = url.indexOf("?", 1);
				return { query: {}, url: i < 0 ? url : url.slice(0, i) };
			},
			/** Replaces moleculer-web's own: header limits, early 413 and JSON answers to bad requests. */
			createServer(this: any) {
				if (this.server) return;
				// Requests to /api/v1/tus are answered by the tus server, not routed by moleculer-web.
				const handler = (req: IncomingMessage, res: ServerResponse) => {
					const pathname = (req.url ?? "").split("?")[0];
					if (isTusPath(pathname)) tusRequest(this, req as Req, res);
					else if (isWebhookPath(pathname)) webhookRequest(this, req as Req, res);
					else this.httpHandler(req, res);
				};
				this.server = createHttpServer((req) => (isFileRequest(req) ? Infinity : config.bodyLimit), withRequestId(observeHttp(this.broker, handler, routeLabel)));
				this.server.requestTimeout = this.settings.requestTimeout;
				this.isHTTPS = false;
			},
			/**
			 * The first step of a node's shutdown (services/index.ts): stop taking connections and
			 * requests, and wait (up to `timeoutMs`) until every request in flight is answered, while
			 * the services they call are still running.
			 */
			async drain(this: any, timeoutMs: number): Promise<void> {
				await drain.start(this.server as Server | undefined, timeoutMs, (msg) => this.logger.info(msg));
			},
		},
		events: {
			"users.changed"(ctx: Context<{ user_ids: number[] }>) {
				for (const id of ctx.params.user_ids) credentials.forget(id);
			},
			// Discovery (each side learning the other's services and event subscriptions) takes about
			// a second; a users node that joins, or this node reconnecting, could miss us meanwhile.
			"$node.connected"() {
				credentials.pause(DISCOVERY_MS);
			},
			"$transporter.connected"() {
				credentials.pause(DISCOVERY_MS);
			},
		},
	} as ServiceSchema;
}
