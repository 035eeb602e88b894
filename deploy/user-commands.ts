// The subcommands that change users and settings: create-user, zuliprc, grant, revoke,
// realm-setting.
//
// They run the users service in-process against the same database as the server (MONGO_URL, or
// the embedded store of DATA_DIR, joining it when the server is running): the same actions as the
// API path, so the same checks, writes and broadcasts. Their broadcasts are recorded and handed to
// the running server, whose users service broadcasts them on the server's bus (NATS, or the one
// process's own) before the command returns, so every running node drops its caches and clients
// hear of the change at once; services/users/management/change-relay.ts says how and why that way.
import { loadConfig } from "../shared/config";
import { startNode, type RunningNode } from "../services";
import { Role } from "../shared/roles";
import { zuliprc } from "../services/users/accounts/accounts";
import { recordBroadcasts, RELAY_WAIT_MS, type RelayedEvent, type RelayOutcome } from "../services/users/management/change-relay";
import { SPECIAL_PERMISSIONS } from "../services/users/management/actions";
import { EXIT, type Command } from "./command-line";

const ROLE_NAMES: Record<string, number> = {
	owner: Role.OWNER,
	administrator: Role.ADMINISTRATOR,
	admin: Role.ADMINISTRATOR,
	moderator: Role.MODERATOR,
	member: Role.MEMBER,
	guest: Role.GUEST,
};

function parseRole(raw: string | undefined): number {
	if (raw === undefined) return Role.MEMBER;
	const role = ROLE_NAMES[raw.toLowerCase()] ?? Number(raw);
	if (!Object.values(Role).includes(role as never)) throw new Error(`Unknown role "${raw}"`);
	return role;
}

type Credentials = { email: string; api_key: string; site: string };

/**
 * Runs `work` on an in-process users service, prints what it answers, and relays the changes it
 * announced (even when it then failed) to the running server.
 */
async function withUsersNode(work: (node: RunningNode) => Promise<string>): Promise<number> {
	// This process is not a cluster node: it talks to the database only.
	const config = loadConfig({ services: ["users"], transporter: "", logLevel: process.env.LOG_LEVEL ?? "warn" });
	const node = await startNode(config, "manage", { cli: true });
	const recorder = recordBroadcasts(node.broker);
	try {
		let out: string;
		try {
			out = await work(node);
		} finally {
			await relay(node, recorder.events());
		}
		process.stdout.write(out);
		return EXIT.OK;
	} finally {
		await node.stop();
	}
}

/**
 * Hands the command's broadcasts to the running server, which tells every node as for the same
 * change made through the API. None runs when this process started the embedded store itself.
 */
async function relay(node: RunningNode, events: RelayedEvent[]): Promise<void> {
	if (!events.length || node.ownStore) return;
	const { outcome } = await node.broker.call<{ outcome: RelayOutcome }, { events: RelayedEvent[] }>("users.relayChanges", { events });
	if (outcome === "not taken") {
		process.stderr.write(
			`A server seemed to run, but none took this change within ${RELAY_WAIT_MS / 1000} s: a server started later reads it from the database; one still running keeps what it cached until restarted.\n`,
		);
	}
}

const str = (v: string | boolean | undefined) => v as string;

const grantOrRevoke = (name: "grant" | "revoke"): Command => ({
	name,
	args: `--email E --permission ${SPECIAL_PERMISSIONS.join("|")}`,
	summary: `${name === "grant" ? "grants" : "revokes"} a special permission`,
	options: { email: { type: "string" }, permission: { type: "string" } },
	required: ["email", "permission"],
	run: ({ values }) =>
		withUsersNode(async (node) => {
			await node.broker.call("users.setPermission", { email: values.email, permission: values.permission, value: name === "grant" });
			return `${name === "grant" ? "Granted" : "Revoked"} ${str(values.permission)} for ${str(values.email)}\n`;
		}),
});

export const USER_COMMANDS: Command[] = [
	{
		name: "create-user",
		args: '--email E --name "Full Name" [--role owner|administrator|moderator|member|guest|100..600] [--password P] [--bot --owner-id ID] [--email-visibility 1..5]',
		summary: "creates a user and prints their zuliprc",
		options: {
			email: { type: "string" },
			name: { type: "string" },
			role: { type: "string" },
			password: { type: "string" },
			bot: { type: "boolean" },
			"owner-id": { type: "string" },
			"email-visibility": { type: "string" },
		},
		required: ["email", "name"],
		run: ({ values }) =>
			withUsersNode(async (node) => {
				const creds = await node.broker.call<Credentials, Record<string, unknown>>("users.createAccount", {
					email: values.email,
					full_name: values.name,
					password: values.password,
					role: parseRole(values.role as string | undefined),
					is_bot: values.bot ?? false,
					bot_owner_id: values["owner-id"] ? Number(values["owner-id"]) : undefined,
					email_address_visibility: values["email-visibility"] ? Number(values["email-visibility"]) : undefined,
				});
				return zuliprc({ delivery_email: creds.email, api_key: creds.api_key }, creds.site);
			}),
	},
	{
		name: "zuliprc",
		args: "--email E",
		summary: "prints an existing user's zuliprc",
		options: { email: { type: "string" } },
		required: ["email"],
		run: ({ values }) =>
			withUsersNode(async (node) => {
				const creds = await node.broker.call<Credentials, Record<string, unknown>>("users.credentials", { email: values.email });
				return zuliprc({ delivery_email: creds.email, api_key: creds.api_key }, creds.site);
			}),
	},
	grantOrRevoke("grant"),
	grantOrRevoke("revoke"),
	{
		name: "realm-setting",
		args: "--name realm_enable_spectator_access --value true",
		summary: "changes an organization setting (the value is read as JSON, else as a string)",
		options: { name: { type: "string" }, value: { type: "string" } },
		required: ["name", "value"],
		run: ({ values }) =>
			withUsersNode(async (node) => {
				let value: unknown = values.value;
				try {
					value = JSON.parse(str(values.value));
				} catch {
					/* a plain string */
				}
				await node.broker.call("users.setRealmSetting", { name: values.name, value });
				return `Set ${str(values.name)} to ${JSON.stringify(value)}\n`;
			}),
	},
];
