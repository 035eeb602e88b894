// How the users service tells the others of a change: users.changed (with who may hear of it
// and how the user looks now), users.groupsChanged (with the user_group events of a group's
// change, or of a user's system groups after a creation or a role change) and
// users.profileFieldsChanged.
import type { Ctx } from "../../shared/actions";
import type { GroupGraphCache } from "../../shared/group-settings";
import type { GroupsChanged, ProfileFieldsChanged, UsersChanged } from "../../shared/org-events";
import { isAdmin } from "../../shared/roles";
import { activeUserIds, type UsersDb } from "./db";
import { groupChange, groupSnapshot } from "./groups/group-events";
import { listFields } from "./profile-fields/profile-field-store";
import { fieldView } from "./profile-fields/profile-fields";
import { channelNames, defaultChannelIds, realmBotView } from "./bots/bot-rules";
import { systemGroupMoves } from "./groups/system-groups";
import { markPending } from "./groups/full-member-promotion";
import { consentEvent } from "./realm-export/export-data";
import { apiEmail, canSeeDeliveryEmail, toApiUser, type ViewOptions } from "./user-view";
import type { ViewParams } from "./user-lookup";

export function userChanges(db: UsersDb, graphs: GroupGraphCache, host: () => string, view: (p: Partial<ViewParams>) => Promise<ViewOptions>) {
	/**
	 * Tells every node that these users changed: gateways drop cached credentials, caches are
	 * cleaned, and event queues tell clients what changed. A change to one user (or its creation)
	 * carries who may hear of it and how the user looks now (shared/org-events.ts).
	 */
	async function changed(ctx: Ctx<any>, userIds: number[], changes?: Record<string, unknown>, created = false, extra: Partial<UsersChanged> = {}) {
		const payload: UsersChanged = { user_ids: userIds, changes };
		if (userIds.length === 1 && (changes || created)) Object.assign(payload, await eventData(ctx, userIds[0], created), extra);
		await ctx.broadcast("users.changed", payload);
		if (created && userIds.length === 1) await systemGroupsChanged(ctx, userIds[0]);
		// A user created or reactivated: their export consent is news to administrators (Zulip's realm_export_consent).
		if (userIds.length === 1 && (created || changes?.is_active === true)) {
			const consent = await consentEvent(db, userIds[0]);
			if (consent) await ctx.broadcast("users.exportConsentChanged", consent);
		}
	}

	/** After a user's creation (no `oldRole`) or role change: the user_group events of its system groups. */
	async function systemGroupsChanged(ctx: Ctx<any>, userId: number, oldRole?: number) {
		const user = await db.User.findOne({ _id: userId, realm_id: db.realm._id }, { _id: 1, role: 1, date_joined: 1, full_member_pending: 1 }).lean();
		if (!user) return;
		const events = await systemGroupMoves(db, user, oldRole);
		// Announced now as it is; a member short of the waiting period waits for the promotion.
		await markPending(db, user);
		if (events.length) await groupEvents(ctx, events);
	}

	/** Some user_group events, to every active user (Zulip's audience for them). */
	async function groupEvents(ctx: Ctx<any>, events: GroupsChanged["events"]) {
		graphs.invalidate();
		await ctx.broadcast("users.groupsChanged", { realm_id: db.realm._id, events, user_ids: await activeUserIds(db) } satisfies GroupsChanged);
	}

	async function eventData(ctx: Ctx<any>, userId: number, created: boolean): Promise<Partial<UsersChanged>> {
		const [target, users] = await Promise.all([
			db.User.findOne({ _id: userId, realm_id: db.realm._id }).lean(),
			db.User.find({ realm_id: db.realm._id, is_active: true }, { _id: 1, role: 1 }).lean(),
		]);
		if (!target) return {};
		const ids = (keep: (u: { _id: number; role: number }) => boolean) => users.filter(keep).map((u) => u._id);
		const out: Partial<UsersChanged> = {
			user_id: userId,
			audience: {
				active: ids(() => true),
				email_viewers: ids((u) => canSeeDeliveryEmail({ user_id: u._id, role: u.role }, target)),
				admins: ids((u) => isAdmin(u.role)),
			},
			email: apiEmail(target, host()),
			delivery_email: target.delivery_email,
			gravatar: target.avatar_source === "G",
			bot_owner_id: target.bot_owner_id,
		};
		if (created) {
			out.person = { ...toApiUser(target, { user_id: target._id, role: target.role }, await view({ client_gravatar: false, include_custom_profile_fields: true })) };
			if (target.is_bot) out.bot = realmBotView(target, await channelNames(ctx, defaultChannelIds([target])));
		}
		return out;
	}

	/**
	 * Group membership or settings changed: every node drops its group graph. A change to one
	 * group (`before`: how it was; none for a new one) carries its `user_group` events.
	 */
	async function groupsChanged(ctx: Ctx<any>, groupId?: number, before?: Record<string, unknown>) {
		graphs.invalidate();
		const payload: GroupsChanged = { realm_id: db.realm._id };
		if (groupId !== undefined) Object.assign(payload, await groupChange(db, await graphs.get(), groupId, before));
		await ctx.broadcast("users.groupsChanged", payload);
	}

	const groupBefore = async (groupId: number) => groupSnapshot(db, await graphs.get(), groupId);

	/** Carries the fields now, for the `custom_profile_fields` event to every active user. */
	async function fieldsChanged(ctx: Ctx<any>) {
		const [fields, user_ids] = await Promise.all([listFields(db), activeUserIds(db)]);
		await ctx.broadcast("users.profileFieldsChanged", { realm_id: db.realm._id, fields: fields.map(fieldView), user_ids } satisfies ProfileFieldsChanged);
	}

	return { changed, systemGroupsChanged, groupsChanged, groupBefore, fieldsChanged };
}
