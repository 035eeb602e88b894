// INVITATION_FAILED, with every field Zulip's InvitationError carries.
import { apiError } from "../../shared/errors";
import type { Refusal } from "./addresses";

export function invitationFailed(msg: string, errors: Refusal[], o: { sent?: boolean; daily?: boolean; license?: boolean } = {}) {
	return apiError(400, "INVITATION_FAILED", msg, {
		errors,
		sent_invitations: o.sent ?? false,
		daily_limit_reached: o.daily ?? false,
		license_limit_reached: o.license ?? false,
	});
}

export const dailyLimitReached = () =>
	invitationFailed(
		"To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.",
		[],
		{ daily: true },
	);

/** Zulip's license check, for an organization with a seat limit. */
export const seatsExhausted = (n: number) =>
	invitationFailed(
		n === 1 ? "All Zulip licenses for this organization are currently in use." : `Your organization does not have enough unused Zulip licenses to invite ${n} users.`,
		[],
		{ license: true },
	);
