// Records the events a test app's broker carries, for checking what a request announced.
import type { TestApp } from "./app";

let counter = 0;

export async function recordEvents(app: TestApp, names: string[]): Promise<Array<{ event: string; payload: any }>> {
	const seen: Array<{ event: string; payload: any }> = [];
	const events = Object.fromEntries(names.map((name) => [name, (ctx: { params: unknown }) => void seen.push({ event: name, payload: ctx.params })]));
	const service = app.node.broker.createService({ name: `event-recorder-${++counter}`, events });
	await app.node.broker.waitForServices([service.name]);
	return seen;
}
