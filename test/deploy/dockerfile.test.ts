// deploy/Dockerfile passes hadolint (from PyPI, installed by test/support/prerequisites.sh) with
// no warning or error, and keeps the shape the deployments rely on.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { HADOLINT, ROOT, tool } from "../support/deploy-tools";
import { startArgs } from "../support/processes";

jest.setTimeout(300_000); // the first run may install hadolint (test/support/prerequisites.sh)

const FILE = path.join(ROOT, "deploy/Dockerfile");
const text = fs.readFileSync(FILE, "utf8");

test("hadolint finds no warning or error", () => {
	let out = "";
	try {
		out = execFileSync(tool(HADOLINT), ["--no-color", "--failure-threshold", "warning", FILE], { encoding: "utf8" });
	} catch (err) {
		out = `${(err as { stdout?: string }).stdout ?? ""}${(err as Error).message}`;
		throw new Error(`hadolint:\n${out}`);
	}
	expect(out).not.toMatch(/ (error|warning):/);
});

test("is multi-stage, installs no dev dependencies and runs as a non-root user", () => {
	expect(text.match(/^FROM /gm)!.length).toBeGreaterThanOrEqual(2);
	expect(text).toMatch(/^RUN npm ci --omit=dev\b/m);
	const user = /^USER (\S+)/m.exec(text)?.[1];
	expect(user).toMatch(/^[1-9]\d*(:\d+)?$/); // numeric, so that Kubernetes can verify runAsNonRoot
});

test("exposes the gateway, health and metrics ports the manifests use, and starts the server", () => {
	const exposed = /^EXPOSE (.+)$/m.exec(text)![1].split(/\s+/);
	expect(exposed).toEqual(expect.arrayContaining(["9991", "9090", "3030"]));
	expect(text).toMatch(/HEALTH_PORT=9090/);
	expect(text).toMatch(/METRICS_PORT=3030/);
	expect(text).toMatch(/^RUN node node_modules\/typescript\/bin\/tsc -p tsconfig\.build\.json$/m);
	// The same command as npm start, V8 flags included.
	expect(JSON.parse(/^CMD (\[.*\])$/m.exec(text)![1])).toEqual(["node", ...startArgs()]);
	expect(startArgs()).toEqual(["--max-semi-space-size=16", "--expose-gc", "dist/deploy/server.js"]);
});
