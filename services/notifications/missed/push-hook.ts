// The push half of the missed-message decision, handed on once per message and recipient: the
// replica whose notice insert counted calls `pushDue` with every recipient a push is due for
// (Zulip's get_push_notification_trigger). Mobile push plugs in here (MissedDeps.pushDue); by
// default nothing is sent. The stored notice keeps the trigger too (`push` of
// missed_message_notices).
import type { NotificationTrigger } from "./notification-data";
import type { SentMessage } from "./sent-message";

export interface PushDue {
	user_id: number;
	trigger: NotificationTrigger;
}

/** Called off the sender's request path, after the notices are stored; a failure is logged. */
export type PushHook = (sent: SentMessage, due: PushDue[]) => Promise<void>;

export const noPush: PushHook = async () => {};
