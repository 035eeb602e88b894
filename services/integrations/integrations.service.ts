// The integrations service: what reaches the server from other tools. Incoming webhooks
// (incoming/: the framework, one module per integration in incoming/integrations/, what they share
// in incoming/toolkit/) turn another tool's request into messages its bot posts through the
// messages service. Outgoing webhook bots (outgoing/) call a bot's server when a message mentions
// or is sent to it, and post its answer; their delivery jobs are the one thing this service stores
// (`<prefix>_integrations`): users, channels and messages stay with their services.
import type { ServiceSchema } from "moleculer";
import type { Config } from "../../shared/config";
import { incomingActions } from "./incoming/webhook";
import { outgoingWebhooks } from "./outgoing/outgoing-webhooks";

export function integrationsService(config: Config & { mongoUrl: string }): ServiceSchema {
	return {
		name: "integrations",
		mixins: [outgoingWebhooks(config)],
		actions: { ...incomingActions({ supportEmail: config.ownerEmail }) },
	} as ServiceSchema;
}
