// The route table: every `METHOD /api/v1/path` and the one action that serves it.
//
// Path parameters are written `{name}`; a name ending in `_id` matches digits only, so
// `/users/{user_id}` and `/users/{email}` can both exist. Routes are tried in order.
export interface Route {
	method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
	path: string;
	action: string;
	/** false for the few endpoints that take no credentials. */
	auth?: boolean;
}

export const routes: Route[] = [
	{ method: "POST", path: "/fetch_api_key", action: "users.fetchApiKey", auth: false },
	{ method: "GET", path: "/server_settings", action: "users.serverSettings", auth: false },
	{ method: "POST", path: "/register", action: "api.register" },

	{ method: "GET", path: "/users", action: "users.list" },
	{ method: "POST", path: "/users", action: "users.create" },
	{ method: "GET", path: "/users/me", action: "users.me" },
	{ method: "GET", path: "/users/{user_id}", action: "users.get" },
	{ method: "GET", path: "/users/{email}", action: "users.getByEmail" },
	{ method: "DELETE", path: "/users/{user_id}", action: "users.deactivate" },
	{ method: "POST", path: "/users/{user_id}/reactivate", action: "users.reactivate" },
];

/** Only with BENCH_ROUTES=1: the do-nothing baseline `npm run bench` compares against. */
export const benchRoutes: Route[] = [{ method: "GET", path: "/bench/noop", action: "users.noop", auth: false }];
