// The part of zulip-js (npm; it ships no types) that the tests use.
declare module "zulip-js" {
	/** Zulip's envelope and whatever the endpoint answers. */
	type Answer = { result: string; msg: string; code?: string } & Record<string, any>;
	type Params = Record<string, unknown>;
	interface Client {
		config: { realm: string; username: string; apiKey: string; apiURL: string };
		users: { me: { getProfile(): Promise<Answer>; subscriptions: { add(p: Params): Promise<Answer> } } };
		streams: { retrieve(p?: Params): Promise<Answer> };
		messages: { send(p: Params): Promise<Answer>; retrieve(p: Params): Promise<Answer> };
		queues: { register(p?: Params): Promise<Answer>; deregister(p: Params): Promise<Answer> };
		events: { retrieve(p: Params): Promise<Answer> };
		reactions: { add(p: Params): Promise<Answer>; remove(p: Params): Promise<Answer> };
	}
	function zulip(config: { zuliprc: string } | { realm: string; username: string; password?: string; apiKey?: string }): Promise<Client>;
	export = zulip;
}
