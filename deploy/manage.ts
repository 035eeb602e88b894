// `npm run manage -- <command>`: administration from the command line.
//
//   create-user --email E --name "N" [--role owner|administrator|moderator|member|guest|100..600]
//               [--password P] [--bot --owner-id ID] [--email-visibility 1..5]
//       creates a user and prints their zuliprc
//   zuliprc --email E
//       prints an existing user's zuliprc
//   grant --email E --permission can_change_user_emails   (and `revoke`)
//       grants or revokes a special permission
//   realm-setting --name realm_enable_spectator_access --value true
//       changes an organization setting (the value is read as JSON, else as a string)
//   import-zulip <export.tar.gz | directory> [--realm-name NAME] [--credentials FILE]
//       imports a Zulip export into a database prefix that holds nothing yet (deploy/import/)
//   store-check [DIR], store-repair [DIR] --to NEW, store-backup DEST
//       the embedded store's data checked, salvaged or copied (deploy/store-commands.ts)
//
// It runs the users service in-process against the same database as the server (MONGO_URL, or
// the embedded store of DATA_DIR, joining it when the server is running): the same actions as the
// API path, so the same checks, writes and broadcasts. Its broadcasts are recorded and handed to
// the running server, whose users service broadcasts them on the server's bus (NATS, or the one
// process's own) before the command returns, so every running node drops its caches and clients
// hear of the change at once; services/users/change-relay.ts says how and why that way.
import { parseArgs } from "node:util";
import { loadConfig } from "../shared/config";
import { startNode, type RunningNode } from "../services";
import { Role } from "../shared/roles";
import { zuliprc } from "../services/users/accounts";
import { recordBroadcasts, RELAY_WAIT_MS, type RelayedEvent, type RelayOutcome } from "../services/users/change-relay";
import { importZulipCommand, IMPORT_USAGE } from "./import/command";
import { STORE_COMMANDS, STORE_USAGE } from "./store-commands";

const ROLE_NAMES: Record<string, number> = {
	owner: Role.OWNER,
	administrator: Role.ADMINISTRATOR,
	admin: Role.ADMINISTRATOR,
	moderator: Role.MODERATOR,
	member: Role.MEMBER,
	guest: Role.GUEST,
};

const USAGE = `usage:
  npm run manage -- create-user --email E --name "Full Name" [--role member] [--password P] [--bot --owner-id ID] [--email-visibility 1..5]
  npm run manage -- zuliprc --email E
  npm run manage -- grant|revoke --email E --permission can_change_user_emails
  npm run manage -- realm-setting --name NAME --value VALUE
  ${IMPORT_USAGE.replace(/^usage: /, "").trimEnd()}
${STORE_USAGE}`;

function parseRole(raw: string | undefined): number {
	if (raw === undefined) return Role.MEMBER;
	const role = ROLE_NAMES[raw.toLowerCase()] ?? Number(raw);
	if (!Object.values(Role).includes(role as never)) throw new Error(`Unknown role "${raw}"`);
	return role;
}

const OPTIONS = {
	email: { type: "string" },
	name: { type: "string" },
	role: { type: "string" },
	password: { type: "string" },
	bot: { type: "boolean" },
	"owner-id": { type: "string" },
	"email-visibility": { type: "string" },
	permission: { type: "string" },
	value: { type: "string" },
} as const;

async function main(): Promise<number> {
	const [command, ...rest] = process.argv.slice(2);
	// Writes a database of its own (deploy/import/): no users service, nothing to relay.
	if (command === "import-zulip") return importZulipCommand(rest);
	if (STORE_COMMANDS[command]) return STORE_COMMANDS[command](rest);
	const { values } = parseArgs({ args: rest, options: OPTIONS });
	const known = ["create-user", "zuliprc", "grant", "revoke", "realm-setting"];
	const incomplete =
		command === "realm-setting"
			? !values.name || values.value === undefined
			: !values.email || (command === "create-user" && !values.name) || ((command === "grant" || command === "revoke") && !values.permission);
	if (!known.includes(command) || incomplete) {
		process.stderr.write(USAGE);
		return 2;
	}

	// This process is not a cluster node: it talks to the database only.
	const config = loadConfig({ services: ["users"], transporter: "", logLevel: process.env.LOG_LEVEL ?? "warn" });
	const node = await startNode(config, "manage", { cli: true });
	const recorder = recordBroadcasts(node.broker);
	try {
		let out: string | undefined;
		try {
			out = await run(node, command, values);
		} catch (err) {
			process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
		}
		// Whatever was changed and announced, even by a command that then failed.
		await relay(node, recorder.events());
		if (out === undefined) return 1;
		process.stdout.write(out);
		return 0;
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

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>["values"];

/** Runs the command; answers what it prints. */
async function run(node: RunningNode, command: string, values: Values): Promise<string> {
	if (command === "realm-setting") {
		let value: unknown = values.value;
		try {
			value = JSON.parse(values.value!);
		} catch {
			/* a plain string */
		}
		await node.broker.call("users.setRealmSetting", { name: values.name, value });
		return `Set ${values.name} to ${JSON.stringify(value)}\n`;
	}
	if (command === "grant" || command === "revoke") {
		await node.broker.call("users.setPermission", { email: values.email, permission: values.permission, value: command === "grant" });
		return `${command === "grant" ? "Granted" : "Revoked"} ${values.permission} for ${values.email}\n`;
	}
	const creds =
		command === "create-user"
			? await node.broker.call<{ email: string; api_key: string; site: string }, Record<string, unknown>>("users.createAccount", {
					email: values.email,
					full_name: values.name,
					password: values.password,
					role: parseRole(values.role),
					is_bot: values.bot ?? false,
					bot_owner_id: values["owner-id"] ? Number(values["owner-id"]) : undefined,
					email_address_visibility: values["email-visibility"] ? Number(values["email-visibility"]) : undefined,
				})
			: await node.broker.call<{ email: string; api_key: string; site: string }, Record<string, unknown>>("users.credentials", { email: values.email });
	return zuliprc({ delivery_email: creds.email, api_key: creds.api_key }, creds.site);
}

main().then(
	(code) => process.exit(code),
	(err) => {
		process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
		process.exit(1);
	},
);
