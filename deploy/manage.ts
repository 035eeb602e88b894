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
//
// It runs the users service in-process against the same database as the server (MONGO_URL, or
// the embedded store of DATA_DIR, joining it when the server is running).
import { parseArgs } from "node:util";
import { loadConfig } from "../shared/config";
import { startNode } from "../services";
import { Role } from "../shared/roles";
import { zuliprc } from "../services/users/accounts";

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
`;

function parseRole(raw: string | undefined): number {
	if (raw === undefined) return Role.MEMBER;
	const role = ROLE_NAMES[raw.toLowerCase()] ?? Number(raw);
	if (!Object.values(Role).includes(role as never)) throw new Error(`Unknown role "${raw}"`);
	return role;
}

async function main(): Promise<number> {
	const [command, ...rest] = process.argv.slice(2);
	const { values } = parseArgs({
		args: rest,
		options: {
			email: { type: "string" },
			name: { type: "string" },
			role: { type: "string" },
			password: { type: "string" },
			bot: { type: "boolean" },
			"owner-id": { type: "string" },
			"email-visibility": { type: "string" },
			permission: { type: "string" },
			value: { type: "string" },
		},
	});
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
	const node = await startNode(config, "manage");
	try {
		if (command === "realm-setting") {
			let value: unknown = values.value;
			try {
				value = JSON.parse(values.value!);
			} catch {
				/* a plain string */
			}
			await node.broker.call("users.setRealmSetting", { name: values.name, value });
			process.stdout.write(`Set ${values.name} to ${JSON.stringify(value)}\n`);
			return 0;
		}
		if (command === "grant" || command === "revoke") {
			await node.broker.call("users.setPermission", { email: values.email, permission: values.permission, value: command === "grant" });
			process.stdout.write(`${command === "grant" ? "Granted" : "Revoked"} ${values.permission} for ${values.email}\n`);
			return 0;
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
		process.stdout.write(zuliprc({ delivery_email: creds.email, api_key: creds.api_key }, creds.site));
		return 0;
	} catch (err) {
		process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
		return 1;
	} finally {
		await node.stop();
	}
}

main().then(
	(code) => process.exit(code),
	(err) => {
		process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
		process.exit(1);
	},
);
