// The integrations service: what reaches the server from other tools. Incoming webhooks
// (incoming/: the framework, one module per integration in incoming/integrations/, what they share
// in incoming/toolkit/) turn another tool's request into messages its bot posts through the
// messages service. It owns no data: users, channels and messages stay with their services.
import type { ServiceSchema } from "moleculer";
import type { Config } from "../../shared/config";
import { incomingActions } from "./incoming/webhook";

export function integrationsService(config: Config): ServiceSchema {
	return {
		name: "integrations",
		actions: { ...incomingActions({ supportEmail: config.ownerEmail }) },
	} as ServiceSchema;
}
