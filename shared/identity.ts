// Who is calling, as the gateway puts it in `ctx.meta.user`: its own module so that the types
// shared/actions.ts gathers (digest rows, ...) can name it without a cycle.

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
