// What a user's change asks of the channels service (accounts and bots alike): the channels the
// user could see before it, and the stream and peer events it announces after it. A node of a
// cluster that runs no channels service goes without either.
import { Errors } from "moleculer";
import { call, type Ctx } from "../../../shared/actions";
import type { UserDoc } from "../models/user";

/** A call to a service this cluster does not run (or runs nowhere reachable now). */
export const serviceMissing = (err: unknown) => err instanceof Errors.ServiceNotFoundError || err instanceof Errors.ServiceNotAvailableError;

/** The channels a user may know about; undefined on a node of a cluster that runs no channels service. */
export async function visibleChannels(ctx: Ctx<any>, user: Pick<UserDoc, "_id" | "role">): Promise<number[] | undefined> {
	try {
		return (await call(ctx, "channels.visibleChannels", { user_id: user._id, role: user.role })).channel_ids;
	} catch (err) {
		if (serviceMissing(err)) return undefined;
		throw err;
	}
}

/**
 * After a change is written, the channels service announces its stream and peer events. The
 * change stands if that fails (logged): clients catch up when they register again.
 */
export async function tellChannels(ctx: Ctx<any>, run: () => Promise<unknown>) {
	try {
		await run();
	} catch (err) {
		if (serviceMissing(err)) return;
		ctx.service?.logger.error({ err }, "the channels service could not announce a user's change");
	}
}
