// `npm run manage` as an operator meets it (deploy/command-line.ts): `--help` and `help` list the
// subcommands; bad arguments answer one line naming the problem and the command's usage, exit 2;
// a command that fails answers one line, exit 1, and leaves nothing behind; never a stack trace.
import fs from "node:fs";
import path from "node:path";
import { manage, scratchManageEnv, type Run } from "../support/manage";

jest.setTimeout(120_000);

const COMMANDS = ["create-user", "zuliprc", "grant", "revoke", "realm-setting", "import-zulip", "export-zulip"];

/** No Node stack trace and no raw parseArgs error code in what the command printed. */
function expectNoTrace(run: Run): void {
	expect(run.stderr).not.toMatch(/^\s+at /m);
	expect(run.stderr).not.toMatch(/ERR_PARSE_ARGS|Error:/);
}

/** A usage error: exit 2, stderr is the problem (naming the command) and then its usage line. */
function expectUsage(run: Run, command: string, problem: RegExp): void {
	expect(run.code).toBe(2);
	const lines = run.stderr.trimEnd().split("\n");
	expect(lines).toHaveLength(2);
	expect(lines[0]).toMatch(problem);
	expect(lines[0].startsWith(`${command}: `)).toBe(true);
	expect(lines[1].startsWith(`usage: npm run manage -- ${command}`)).toBe(true);
	expect(run.stdout).toBe("");
	expectNoTrace(run);
}

let work: string;
let env: Record<string, string>;

let scratch: Awaited<ReturnType<typeof scratchManageEnv>> | undefined;

beforeAll(async () => {
	// The embedded store of a data directory of its own, whose prefix holds nothing.
	scratch = await scratchManageEnv("manage-cli");
	({ work, env } = scratch);
});

afterAll(() => scratch?.remove());

test("--help and help list every subcommand on stdout, exit 0; no command at all lists them on stderr, exit 2", async () => {
	for (const args of [["--help"], ["help"]]) {
		const run = await manage(env, args);
		expect(run).toMatchObject({ code: 0, stderr: "" });
		for (const c of COMMANDS) expect(run.stdout).toMatch(new RegExp(`^  ${c} +\\S`, "m"));
	}
	const none = await manage(env, []);
	expect(none).toMatchObject({ code: 2, stdout: "" });
	for (const c of COMMANDS) expect(none.stderr).toContain(`  ${c} `);
});

test("a command's --help prints its usage, exit 0", async () => {
	const run = await manage(env, ["export-zulip", "--help"]);
	expect(run).toMatchObject({ code: 0, stderr: "" });
	expect(run.stdout).toMatch(/^usage: npm run manage -- export-zulip <out\.tar\.gz>/);
});

test("an unknown command is named, with the list of commands, exit 2", async () => {
	const run = await manage(env, ["bogus"]);
	expect(run.code).toBe(2);
	expect(run.stderr.split("\n")[0]).toBe('unknown command "bogus"');
	expect(run.stderr).toContain("  export-zulip ");
	expectNoTrace(run);
});

test("bad arguments answer one line naming the problem, then the usage, exit 2", async () => {
	expectUsage(await manage(env, ["import-zulip", "x", "y"]), "import-zulip", /an extra "y"/);
	expectUsage(await manage(env, ["import-zulip"]), "import-zulip", /missing the export/);
	expectUsage(await manage(env, ["create-user", "--bogus"]), "create-user", /Unknown option '--bogus'$/);
	expectUsage(await manage(env, ["create-user", "--email", "x@example.com"]), "create-user", /missing --name$/);
	expectUsage(await manage(env, ["zuliprc", "--email"]), "zuliprc", /--email/);
	expectUsage(await manage(env, ["realm-setting", "--name", "x", "extra"]), "realm-setting", /unexpected argument "extra"/);
	expectUsage(await manage(env, ["export-zulip", path.join(work, "team.zip")]), "export-zulip", /must end in \.tar\.gz/);
	expectUsage(await manage(env, ["export-zulip", path.join(work, "nowhere", "team.tar.gz")]), "export-zulip", /no such directory/);
	const existing = path.join(work, "existing.tar.gz");
	fs.writeFileSync(existing, "kept");
	expectUsage(await manage(env, ["export-zulip", existing]), "export-zulip", /exists already/);
	expect(fs.readFileSync(existing, "utf8")).toBe("kept");
});

test("a command that fails answers one line, exit 1, and leaves no file behind", async () => {
	const out = path.join(work, "empty.tar.gz");
	const run = await manage(env, ["export-zulip", out]);
	expect(run).toMatchObject({ code: 1, stdout: "" });
	expect(run.stderr).toBe("export-zulip failed: this database prefix holds no organization: set DB_PREFIX to the server's\n");
	expect(fs.readdirSync(work).filter((f) => f.includes("empty"))).toEqual([]);
});
