// What every `npm run manage` subcommand shares: each is a small entry (its name, usage line,
// options and handler) and runCommandLine parses the arguments against it and answers as an
// operator expects:
//   - bad arguments (an unknown option, a missing or extra one, a value that cannot be) print one
//     line naming the problem and the command's usage on stderr, and exit 2;
//   - `--help` (or `help`) lists the subcommands; `<command> --help` prints its usage (exit 0);
//   - a command that fails prints one line on stderr (never a stack trace) and exits 1;
//   - success exits 0.
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";

/** Exit codes. */
export const EXIT = { OK: 0, FAILED: 1, USAGE: 2 } as const;

/** Thrown by a handler for arguments it cannot use: answered as a usage error (exit 2). */
export class UsageError extends Error {}

export interface Parsed {
	values: Record<string, string | boolean | undefined>;
	positionals: string[];
}

export interface Command {
	name: string;
	/** The arguments, as the usage line shows them after the command's name. */
	args: string;
	/** One line: what the command does. */
	summary: string;
	options: ParseArgsOptionsConfig;
	/** How many positional arguments it takes (none unless said). */
	positionals?: { min: number; max: number; what: string };
	/** The options it cannot go without. */
	required?: string[];
	/** Runs the command; answers its exit code. What it prints on stdout is its own. */
	run(args: Parsed): Promise<number>;
}

export const usageOf = (c: Command) => `usage: npm run manage -- ${c.name}${c.args ? ` ${c.args}` : ""}`;

function listing(commands: Command[]): string {
	const width = Math.max(...commands.map((c) => c.name.length));
	return `usage: npm run manage -- <command> [arguments]   (npm run manage -- <command> --help for its usage)\n\ncommands:\n${commands
		.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`)
		.join("\n")}\n`;
}

const oneLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split("\n")[0];

/** Checks what parseArgs does not: how many positionals, and the required options. */
function check(c: Command, parsed: Parsed): string | undefined {
	const { min, max, what } = c.positionals ?? { min: 0, max: 0, what: "" };
	const n = parsed.positionals.length;
	if (n > max) return max ? `one ${what} only, not ${n} arguments (an extra "${parsed.positionals[max]}")` : `unexpected argument "${parsed.positionals[0]}"`;
	if (n < min) return `missing the ${what}`;
	const missing = (c.required ?? []).filter((o) => parsed.values[o] === undefined);
	if (missing.length) return `missing ${missing.map((o) => `--${o}`).join(", ")}`;
	return undefined;
}

export async function runCommandLine(commands: Command[], argv: string[], out = process.stdout, err = process.stderr): Promise<number> {
	const [name, ...rest] = argv;
	if (name === undefined) {
		err.write(listing(commands));
		return EXIT.USAGE;
	}
	if (name === "--help" || name === "-h" || name === "help") {
		out.write(listing(commands));
		return EXIT.OK;
	}
	const command = commands.find((c) => c.name === name);
	if (!command) {
		err.write(`unknown command "${name}"\n${listing(commands)}`);
		return EXIT.USAGE;
	}
	if (rest.includes("--help") || rest.includes("-h")) {
		out.write(`${usageOf(command)}\n  ${command.summary}\n`);
		return EXIT.OK;
	}
	const usage = (problem: string) => {
		err.write(`${command.name}: ${problem}\n${usageOf(command)}\n`);
		return EXIT.USAGE;
	};
	let parsed: Parsed;
	try {
		parsed = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true }) as Parsed;
	} catch (e) {
		// Node's own message names the option ("Unknown option '--bogus'..."): its first sentence.
		return usage(oneLine(e).replace(/\. .*$/, ""));
	}
	const problem = check(command, parsed);
	if (problem) return usage(problem);
	try {
		return await command.run(parsed);
	} catch (e) {
		if (e instanceof UsageError) return usage(e.message);
		err.write(`${command.name} failed: ${oneLine(e)}\n`);
		return EXIT.FAILED;
	}
}
