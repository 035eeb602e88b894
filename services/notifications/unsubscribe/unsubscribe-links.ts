// One-click unsubscribe (Zulip's zerver/views/unsubscribe.py): an email of a kind that can be
// turned off carries a link /accounts/unsubscribe/<type>/<key>, in its footer and its
// List-Unsubscribe header; opening it turns that kind off for the recipient without logging in.
// "login", "digest" and "missed_messages" turn enable_login_emails, enable_digest_emails and
// enable_offline_email_notifications off (as the user, through users.updateSettings, so their
// clients hear of it; Zulip's do_missedmessage_unsubscribe for the last); "welcome" cancels the
// onboarding emails not sent yet (Zulip's do_welcome_unsubscribe). Decision: a key opens only the
// type it was made for (Zulip's open any).
import { createHash } from "node:crypto";
import type { Model } from "mongoose";
import type { ServiceBroker } from "moleculer";
import { call, type Identity } from "../../../shared/actions";
import { clock } from "../../../shared/clock";
import { notFound } from "../../../shared/errors";
import { randomToken } from "../../../shared/passwords";
import type { UnsubscribeType } from "../templates/layout";
import type { OutboxEmailDoc } from "../models/outbox-email";
import type { UnsubscribeKeyDoc } from "../models/unsubscribe-key";

export const UNSUBSCRIBE_PATH = "/accounts/unsubscribe";

/** What each type turns off, as its link and page say it (Zulip's display names). */
export const UNSUBSCRIBE_WHAT: Record<UnsubscribeType, string> = { login: "login emails", welcome: "welcome emails", digest: "digest emails", missed_messages: "missed message emails" };

/** The personal setting each type's link turns off (as the user); "welcome" cancels emails instead. */
const SETTING_OFF = { login: "enable_login_emails", digest: "enable_digest_emails", missed_messages: "enable_offline_email_notifications" } as const;

export interface UnsubscribeDeps {
	broker: ServiceBroker;
	UnsubscribeKey: Model<UnsubscribeKeyDoc>;
	Outbox: Model<OutboxEmailDoc>;
}

const keyHash = (key: string) => createHash("sha256").update(key).digest("hex");

/** A new link for `user_id`'s emails of `type`; `user` is who a setting change is made as. */
export async function unsubscribeLink(deps: UnsubscribeDeps, realmUrl: string, type: UnsubscribeType, user_id: number, user: Identity | null): Promise<string> {
	const key = randomToken(32);
	await deps.UnsubscribeKey.create({ _id: keyHash(key), type, user_id, user, created_at: clock.nowMs() });
	return `${realmUrl}${UNSUBSCRIBE_PATH}/${type}/${key}`;
}

/** One new link per user of `users` (in one insert), by user ID. */
export async function unsubscribeLinks(deps: UnsubscribeDeps, realmUrl: string, type: UnsubscribeType, users: Array<{ user_id: number; as: Identity | null }>): Promise<Map<number, string>> {
	const now = clock.nowMs();
	const made = users.map((u) => ({ ...u, key: randomToken(32) }));
	if (made.length) await deps.UnsubscribeKey.insertMany(made.map((m) => ({ _id: keyHash(m.key), type, user_id: m.user_id, user: m.as, created_at: now })));
	return new Map(made.map((m) => [m.user_id, `${realmUrl}${UNSUBSCRIBE_PATH}/${type}/${m.key}`]));
}

const unknownLink = () => notFound("Unknown email unsubscribe request");

/** Opens a link: the kind of email is off for its recipient (again, if it was already). */
export async function unsubscribe(deps: UnsubscribeDeps, type: string, key: string): Promise<{ what: string }> {
	if (!Object.hasOwn(UNSUBSCRIBE_WHAT, type) || !/^[A-Za-z0-9]{32}$/.test(key)) throw unknownLink();
	const doc = await deps.UnsubscribeKey.findById(keyHash(key)).lean();
	if (!doc || doc.type !== type) throw unknownLink();
	if (type !== "welcome") {
		if (!doc.user) throw unknownLink();
		await call(deps.broker, "users.updateSettings", { [SETTING_OFF[type as keyof typeof SETTING_OFF]]: false }, { meta: { user: doc.user } });
	} else {
		await deps.Outbox.updateMany({ user_id: doc.user_id, kind: "account_registered", state: "queued" }, { $set: { state: "cancelled" } });
	}
	return { what: UNSUBSCRIBE_WHAT[type as UnsubscribeType] };
}
