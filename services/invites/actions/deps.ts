// What the invites service's action groups share.
import type { Model } from "mongoose";
import type { Ctx } from "../../../shared/actions";
import type { Config } from "../../../shared/config";
import type { GroupGraphCache } from "../../../shared/group-settings";
import type { InvitationDoc, MultiuseInviteDoc } from "../models/invitation";
import type { InviteQuotaDoc } from "../models/invite-quota";

export type { Ctx } from "../../../shared/actions";

export interface InvitesDeps {
	Invitation: Model<InvitationDoc>;
	MultiuseInvite: Model<MultiuseInviteDoc>;
	Quota: Model<InviteQuotaDoc>;
	nextId: (entity: string, count?: number) => Promise<number>;
	/** The organization's group graph, from the users service, cleaned by its events. */
	graphs: GroupGraphCache;
	config: Pick<Config, "invitationLinkValidityMinutes" | "invitesDailyLimit" | "seatLimit">;
	/** Zulip's invites_changed, to the organization's administrators and these users. */
	announce(ctx: Ctx<any>, userIds: number[]): Promise<void>;
	logger: { error(...args: unknown[]): void };
}
