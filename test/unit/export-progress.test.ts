// export-zulip's progress lines (deploy/export/phase-lines.ts on import-zulip's Progress): a line
// per phase on a terminal, nothing when the output is not a terminal or CI is set.
import { phaseLines } from "../../deploy/export/phase-lines";
import { Progress } from "../../deploy/progress";

/** A stream that records what is written, a terminal or not. */
function stream(isTTY: boolean) {
	const written: string[] = [];
	return { out: { isTTY, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream, written };
}

/** What a terminal shows: each line's last redraw. */
const screen = (written: string[]) =>
	written.join("").split("\n").map((line) => line.split("\r").pop()!.replace(/\x1b\[2K/g, "").replace(/ {2}\d+\/s$/, "")).filter(Boolean);

describe("export-zulip's progress", () => {
	const ci = process.env.CI;
	afterEach(() => {
		if (ci === undefined) delete process.env.CI;
		else process.env.CI = ci;
	});

	test("on a terminal: one finished line per phase, with each phase's count", () => {
		delete process.env.CI;
		const { out, written } = stream(true);
		const lines = phaseLines(new Progress(out));
		lines.step({ phase: "users", count: 1000 });
		lines.step({ phase: "users", count: 250 });
		lines.step({ phase: "subscriptions", count: 40 });
		lines.step({ phase: "messages", count: 1000 });
		lines.step({ phase: "messages", count: 3 });
		lines.step({ phase: "tables", count: 52 });
		lines.end();
		expect(screen(written).map((l) => l.replace(/ +/g, " "))).toEqual(["users 1250", "subscriptions 40", "messages 1003", "tables 52"]);
		expect(written.join("").endsWith("\n")).toBe(true);
	});

	test("nothing when the output is not a terminal, or under CI", () => {
		delete process.env.CI;
		const piped = stream(false);
		const a = phaseLines(new Progress(piped.out));
		a.step({ phase: "users", count: 3 });
		a.end();
		expect(piped.written).toEqual([]);

		process.env.CI = "1";
		const terminal = stream(true);
		const b = phaseLines(new Progress(terminal.out));
		b.step({ phase: "users", count: 3 });
		b.end();
		expect(terminal.written).toEqual([]);
	});

	test("an import's phase still shows its total", () => {
		delete process.env.CI;
		const { out, written } = stream(true);
		const progress = new Progress(out);
		progress.start("channels", 4);
		progress.add(4);
		progress.finish();
		expect(screen(written)).toEqual([expect.stringMatching(/^channels +\[#{24}\] 4\/4$/)]);
	});
});
