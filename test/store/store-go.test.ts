// The embedded store's own Go tests (key order, long $in lists), run with the Go that builds it.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { goForStore } from "../../shared/go-toolchain";

test("the embedded store's Go tests pass", () => {
	const out = execFileSync(goForStore(), ["test", "-count=1", "./..."], {
		cwd: path.join(__dirname, "..", "..", "deploy", "embedded-store"),
		env: { ...process.env, GOFLAGS: "-mod=readonly", GOTOOLCHAIN: "local" },
		encoding: "utf8",
	});
	expect(out).toMatch(/^ok\s/m);
}, 300_000);
