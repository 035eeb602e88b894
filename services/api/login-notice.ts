// After a password login (POST /fetch_api_key): the notifications service is asked for Zulip's
// new-login email, with the client's User-Agent and address, which only the gateway sees. The
// login succeeds whatever becomes of the notice (a failure is logged).
import type { IncomingMessage } from "node:http";
import type { Context } from "moleculer";
import { call, type Meta } from "../../shared/actions";
import { randomToken } from "../../shared/passwords";

export async function noticeLogin(
	ctx: Context<unknown, Meta>,
	req: IncomingMessage,
	login: { email?: unknown; api_key?: unknown } | undefined,
	address: string,
	logger: { warn(...a: unknown[]): void },
): Promise<void> {
	if (typeof login?.email !== "string" || typeof login.api_key !== "string") return;
	try {
		const user = await call(ctx, "users.authenticate", { email: login.email, api_key: login.api_key });
		const idempotency_key = `login:${user.user_id}:${randomToken(24)}`;
		await call(ctx, "notifications.loginNotice", { user_agent: req.headers["user-agent"] ?? "", ip: address, idempotency_key }, { meta: { user } });
	} catch (err) {
		logger.warn({ err }, "new-login email not sent");
	}
}
