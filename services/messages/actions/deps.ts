// What the messages service's action groups share: the database handles, the lookups in other
// services, and the organization snapshot.
import type { Context } from "moleculer";
import type { Meta } from "../../../shared/actions";
import type { GroupGraphCache } from "../../../shared/group-settings";
import type { MessagesDb } from "../db";
import type { Resolvers } from "../fetch";
import type { AutoFollow } from "../auto-follow";

export type Ctx<P = Record<string, never>> = Context<P, Meta>;

export interface ServiceDeps {
	db: MessagesDb;
	resolvers(ctx: Ctx<any>): Resolvers;
	graphs(): GroupGraphCache;
	autoFollow: AutoFollow;
}
