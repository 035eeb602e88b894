// `npm run manage -- <command>`: administration from the command line. `npm run manage -- --help`
// lists the commands; `npm run manage -- <command> --help` prints one's usage.
//
// Each command is an entry (name, usage, options, handler; command-line.ts says how arguments,
// errors and exit codes are answered), kept beside what it does:
//   user-commands.ts     create-user, zuliprc, grant, revoke, realm-setting (through the users
//                        service, relayed to a running server)
//   import/command.ts    import-zulip: a Zulip export into an empty database prefix
//   export/command.ts    export-zulip: the organization as a Zulip export
//   store-commands.ts    store-check, store-repair, store-backup: the embedded store's data
//   email-commands.ts    email-dead-letters: the emails the notifications service could not deliver
// A new command is an entry in one of these (or a module of its own) added to COMMANDS.
import { runCommandLine, type Command } from "./command-line";
import { EXPORT_COMMAND } from "./export/command";
import { IMPORT_COMMAND } from "./import/command";
import { STORE_COMMANDS } from "./store-commands";
import { USER_COMMANDS } from "./user-commands";
import { EMAIL_COMMANDS } from "./email-commands";

const COMMANDS: Command[] = [...USER_COMMANDS, IMPORT_COMMAND, EXPORT_COMMAND, ...STORE_COMMANDS, ...EMAIL_COMMANDS];

runCommandLine(COMMANDS, process.argv.slice(2)).then(
	(code) => process.exit(code),
	(err) => {
		// Only a fault of the command line itself reaches here: one line, as every failure.
		process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
		process.exit(1);
	},
);
