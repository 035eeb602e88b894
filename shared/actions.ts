// The bus contract: every action one service calls on another, with its parameters and result,
// declared once here so a call across the bus is type-checked like a local one.
import type { Context } from "moleculer";
import type { GroupGraphData } from "./group-settings";

/** Who is calling: the authenticated user, put in `ctx.meta.user` by the gateway. */
export interface Identity {
	user_id: number;
	realm_id: number;
	email: string;
	delivery_email: string;
	full_name: string;
	role: number;
	is_bot: boolean;
}

export interface Meta {
	user?: Identity;
}

/** The authenticated caller of an action the gateway routed (every route but a few requires one). */
export function requireUser(ctx: Context<unknown, Meta>): Identity {
	const user = ctx.meta.user;
	if (!user) throw new Error("action called without an authenticated user");
	return user;
}

/** A user as the API shows it (GET /users, GET /users/me, realm_users in POST /register). */
export interface ApiUser {
	user_id: number;
	email: string;
	delivery_email: string | null;
	full_name: string;
	date_joined: string;
	is_active: boolean;
	is_owner: boolean;
	is_admin: boolean;
	is_guest: boolean;
	is_billing_admin: boolean;
	role: number;
	is_bot: boolean;
	bot_type: number | null;
	bot_owner_id?: number | null;
	timezone: string;
	avatar_url: string | null;
	avatar_version: number;
	profile_data?: Record<string, { value: string; rendered_value?: string }>;
}

export interface RegisterStateParams {
	/** Event types the client wants state for; null means all. */
	event_types: string[] | null;
	client_gravatar: boolean;
	include_subscribers: boolean | "partial";
	slim_presence: boolean;
	user_avatar_url_field_optional: boolean;
	client_capabilities: Record<string, boolean>;
}

/** Each service answers `<service>.registerState` with its own part of the POST /register state. */
export type RegisterState = Record<string, unknown>;

/** A user as permission checks need them. */
export interface Principal {
	user_id: number;
	role: number;
	is_bot: boolean;
	bot_owner_id: number | null;
}

export interface ActionMap {
	"users.authenticate": { params: { email: string; api_key: string }; result: Identity };
	"users.getMany": { params: { user_ids: number[]; client_gravatar?: boolean; include_custom_profile_fields?: boolean }; result: { users: ApiUser[] } };
	"users.registerState": { params: RegisterStateParams; result: RegisterState };
	"users.resolvePrincipals": { params: { principals: Array<number | string> }; result: { users: Principal[] } };
	"users.groupGraph": { params: Record<string, never>; result: GroupGraphData };
}

export type ActionName = keyof ActionMap;

/** A typed `ctx.call`: the name picks the parameter and result types from ActionMap. */
export function call<K extends ActionName>(
	ctx: Context<unknown, Meta>,
	name: K,
	params: ActionMap[K]["params"],
): Promise<ActionMap[K]["result"]> {
	return ctx.call(name, params);
}
