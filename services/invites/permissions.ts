// Who may invite, and whom: Zulip's require_member_or_admin, the organization's invitation
// permission groups, and the roles an inviter may hand out.
import type { Identity } from "../../shared/actions";
import { badRequest, guestNotAllowed, insufficientPermission, ownerRequired } from "../../shared/errors";
import type { GroupGraph } from "../../shared/group-settings";
import { isAdmin, isGuest, Role } from "../../shared/roles";

/** Guests and bots never manage invitations (Zulip's require_member_or_admin). */
export function requireMemberOrAdmin(actor: Identity): void {
	if (isGuest(actor.role)) throw guestNotAllowed();
	if (actor.is_bot) throw badRequest("This endpoint does not accept bot requests.");
}

/** The organization setting that lets the actor send invitations by email, or create links. */
export function requireInvitePermission(graph: GroupGraph, actor: Identity, setting: "can_invite_users_group" | "create_multiuse_invite_group"): void {
	requireMemberOrAdmin(actor);
	if (!graph.realmAllows(setting, actor.user_id)) throw insufficientPermission();
}

/**
 * The spec's rule: only roles equal to or more restricted than the inviter's own (so a moderator
 * may invite moderators, where Zulip asks for an administrator); owners only by owners.
 */
export function checkInviteAs(actor: Identity, role: number): void {
	if (role === Role.OWNER && actor.role !== Role.OWNER) throw ownerRequired();
	if (role < actor.role) throw badRequest("Must be an organization administrator");
}

/** Zulip's access to someone else's invitation: administrators, and owners for an owner's invitation. */
export function requireControl(actor: Identity, invite: { referrer_id: number; invited_as: number }): void {
	if (invite.referrer_id === actor.user_id) return;
	if (invite.invited_as === Role.OWNER && actor.role !== Role.OWNER) throw ownerRequired();
	if (!isAdmin(actor.role)) throw badRequest("Must be an organization administrator");
}

/** Custom welcome text: administrators only (Zulip's error for anyone else). */
export function checkWelcomeText(actor: Identity, text: string | null | undefined): void {
	if (text !== null && text !== undefined && !isAdmin(actor.role)) throw badRequest("Must be an organization administrator");
}
