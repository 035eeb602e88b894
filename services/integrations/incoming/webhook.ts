// POST /api/v1/external/<integration> (the gateway authenticates the bot by the URL's api_key and
// passes the request on whole): Zulip's webhook_view and check_send_webhook_message. The
// integration reads the request and names its messages; this decides what becomes of them and
// of every failure, in Zulip's terms:
// - an event the integration does not support: a success naming it (Zulip 10 answers 200 with
//   code UNSUPPORTED_WEBHOOK_EVENT_TYPE, so the tool does not retry), nothing posted;
// - a missing event header: 400 MISSING_HTTP_EVENT_HEADER, and the bot's owner is told;
// - a body that is not JSON: 400 "Malformed JSON" (the owner told where Zulip does so);
// - a payload of the wrong shape: 400 naming the field; anything else an integration trips on:
//   400 "Malformed payload". Never a 500, and nothing posted before every message is ready.
import { Errors } from "moleculer";
import { call, type Ctx, type WebhookAnswer, type WebhookCall, type WebhookSender } from "../../../shared/actions";
import { apiError, badRequest, notFound } from "../../../shared/errors";
import { p, params } from "../../../shared/params";
import { integrationNamed } from "./registry";
import { AnomalousPayload, MalformedJson, MisconfiguredPayload, MissingHeader, UnsupportedEvent, WebhookRequest, type Integration, type Outcome } from "./integration";
import { invalidJsonNotice, missingHeaderNotice, notifyOwner } from "./owner-notices";
import { deliver, eventFilter, finalPost, targetOf } from "./deliver";

/** Bot types that may post through integrations: generic (1) and incoming webhook (2) bots. */
const WEBHOOK_BOT_TYPES = new Set([1, 2]);

export interface IncomingDeps {
	supportEmail: string;
}

async function run(ctx: Ctx<any>, bot: WebhookSender, integration: Integration, req: WebhookRequest, deps: IncomingDeps): Promise<Outcome> {
	try {
		return await integration.handle(req);
	} catch (err) {
		if (err instanceof MissingHeader) {
			const content = missingHeaderNotice({ botName: bot.full_name, path: req.call.path, header: err.header, integration: integration.displayName, supportEmail: deps.supportEmail });
			await notifyOwner(ctx, bot, content);
			throw apiError(400, "MISSING_HTTP_EVENT_HEADER", err.message, { header: err.header });
		}
		if (err instanceof MalformedJson) {
			if (integration.notifyOnInvalidJson) await notifyOwner(ctx, bot, invalidJsonNotice(integration.displayName));
			throw badRequest("Malformed JSON");
		}
		if (err instanceof MisconfiguredPayload) {
			await notifyOwner(ctx, bot, err.notice({ botName: bot.full_name, supportEmail: deps.supportEmail }));
			throw badRequest("Invalid payload");
		}
		if (err instanceof AnomalousPayload) throw apiError(400, "ANOMALOUS_WEBHOOK_PAYLOAD", `Unable to parse request: Did ${integration.displayName} generate this event?`);
		if (err instanceof UnsupportedEvent || err instanceof Errors.MoleculerClientError) throw err;
		ctx.service?.logger.warn({ err, integration: integration.name }, "webhook payload not understood");
		throw badRequest("Malformed payload");
	}
}

async function processRequest(ctx: Ctx<any>, bot: WebhookSender, integration: Integration, req: WebhookRequest, deps: IncomingDeps): Promise<WebhookAnswer> {
	// The URL's own parameters first: a bad one changes nothing whatever the payload.
	const wanted = eventFilter(req.params);
	const target = targetOf(req.params, bot, integration);
	let outcome: Outcome;
	try {
		outcome = await run(ctx, bot, integration, req, deps);
	} catch (err) {
		if (!(err instanceof UnsupportedEvent)) throw err;
		const msg = `The '${err.eventType}' event isn't currently supported by the ${integration.displayName} webhook; ignoring`;
		ctx.service?.logger.info({ integration: integration.name, event: err.eventType }, "unsupported webhook event");
		return { data: { msg, code: "UNSUPPORTED_WEBHOOK_EVENT_TYPE", event_type: err.eventType, webhook_name: integration.displayName } };
	}
	const list = outcome.posts.filter((m) => wanted(m.event)).map((m) => finalPost(m, req.params, integration));
	if (outcome.ownerNotice) await notifyOwner(ctx, bot, outcome.ownerNotice({ botName: bot.full_name, supportEmail: deps.supportEmail }));
	await deliver(ctx, bot, integration, outcome.channel === undefined ? target : { type: "stream", to: outcome.channel }, list);
	return outcome.raw ? { raw: outcome.raw } : { data: outcome.data };
}

export function incomingActions(deps: IncomingDeps) {
	return {
		incoming: {
			visibility: "public",
			params: params({ integration: p.string(), method: p.string(), query: { type: "object" }, headers: { type: "object" }, body: p.string({ empty: true }), path: p.string() }),
			async handler(ctx: Ctx<WebhookCall>): Promise<WebhookAnswer> {
				const integration = integrationNamed(ctx.params.integration);
				if (!integration) throw notFound();
				const bot = ctx.meta.user as WebhookSender;
				if (!bot.is_bot || !WEBHOOK_BOT_TYPES.has(bot.bot_type ?? 0)) throw badRequest("Only incoming webhook bots and generic bots can post through integrations.");
				const req = new WebhookRequest(ctx.params, bot, { people: (emails, guesses) => call(ctx, "users.integrationPeople", { emails, guesses }) });
				const answer = processRequest(ctx, bot, integration, req, deps);
				if (!integration.errorAnswer) return answer;
				// Slack's format: every error of the request as {ok: false, error}.
				return answer.catch((err: unknown) => {
					if (!(err instanceof Errors.MoleculerClientError)) throw err;
					return { raw: integration.errorAnswer!(err.code, err.message) };
				});
			},
		},
	};
}
