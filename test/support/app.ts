// Boots the broker and gateway in-process against the test store, with a fresh database prefix,
// and talks to it over real HTTP.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { loadConfig, type Config } from "../../shared/config";
import { startNode, type RunningNode } from "../../services";

export interface Account {
	user_id: number;
	email: string;
	api_key: string;
}

export interface Cast {
	admin: Account;
	moderator: Account;
	member: Account;
	member2: Account;
	guest: Account;
}

export interface TestApp {
	node: RunningNode;
	baseUrl: string;
	owner: Account;
	dataDir: string;
	stop(): Promise<void>;
	/** One user of each role but owner, plus a second member: the usual cast of a permission test. */
	createCast(): Promise<Cast>;
	/** Creates a user directly through the users service (test setup, not under test). */
	/** Grants a special permission, as the operator's `npm run manage -- grant` does. */
	grant(a: Account, permission: "can_create_users" | "can_change_user_emails"): Promise<void>;
	createUser(o: { role?: number; email?: string; full_name?: string; password?: string; is_bot?: boolean; email_address_visibility?: number; bot_owner_id?: number }): Promise<Account>;
}

let counter = 0;

export async function startTestApp(overrides: Partial<Config> = {}): Promise<TestApp> {
	const mongoUrl = process.env.TEST_MONGO_URL;
	if (!mongoUrl) throw new Error("TEST_MONGO_URL is not set: run the tests through jest (globalSetup starts the store)");
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-test-"));
	const config = loadConfig({
		mongoUrl,
		dbPrefix: `t${randomBytes(4).toString("hex")}`,
		dataDir,
		emailDir: path.join(dataDir, "emails"),
		host: "127.0.0.1",
		port: 0,
		externalUrl: "http://chat.test",
		ownerEmail: "owner@chat.test",
		ownerPassword: "owner-password",
		logLevel: "warn",
		rateLimit: 100_000,
		transporter: "",
		services: [],
		// No background email sweeps: tests sweep by hand (notifications.missedSweep, outboxSweep),
		// so a test that moves the clock past a batching period is not raced by a timer's sweep.
		emailSweepSeconds: 0,
		...overrides,
	});
	const node = await startNode(config, "test");
	const api = node.broker.getLocalService("api") as unknown as { server: { address(): AddressInfo } } | undefined;
	const baseUrl = api ? `http://127.0.0.1:${api.server.address().port}/api/v1` : "";
	const owner = await node.broker.call<Account, { email: string }>("users.credentials", { email: config.ownerEmail });
	const app: TestApp = {
		node,
		baseUrl,
		owner,
		dataDir,
		async stop() {
			await node.stop();
			fs.rmSync(dataDir, { recursive: true, force: true });
		},
		async createCast() {
			const [admin, moderator, member, member2, guest] = [
				await app.createUser({ role: 200 }),
				await app.createUser({ role: 300 }),
				await app.createUser({ role: 400 }),
				await app.createUser({ role: 400 }),
				await app.createUser({ role: 600 }),
			];
			return { admin, moderator, member, member2, guest };
		},
		async grant(a, permission) {
			await node.broker.call("users.setPermission", { email: a.email, permission, value: true });
		},
		async createUser(o) {
			const n = ++counter;
			const res = await node.broker.call<Account & { site: string }, Record<string, unknown>>("users.createAccount", {
				email: o.email ?? `user${n}-${randomBytes(3).toString("hex")}@chat.test`,
				full_name: o.full_name ?? `Test User ${n}`,
				password: o.password ?? "password123",
				role: o.role ?? 400,
				is_bot: o.is_bot,
				bot_owner_id: o.bot_owner_id,
				email_address_visibility: o.email_address_visibility,
			});
			return { user_id: res.user_id, email: res.email, api_key: res.api_key };
		},
	};
	return app;
}
