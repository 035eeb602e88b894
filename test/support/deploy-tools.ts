// The tools the deployment tests (test/deploy) run: kustomize and hadolint, both installed into
// the project by test/support/prerequisites.sh (which these helpers run when one is missing, as
// `npm test` does first), and the Kubernetes schema check (k8s-schema.ts).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import type { Problem } from "./k8s-schema";

export const ROOT = path.resolve(__dirname, "../..");
const TOOLS = path.join(ROOT, "node_modules/.cache/deploy-tools");
export const KUSTOMIZE = path.join(TOOLS, "bin/kustomize");
export const HADOLINT = path.join(TOOLS, "venv/bin/hadolint");

/** The tool's path, after installing the test prerequisites if it is missing. */
export function tool(file: string): string {
	if (!fs.existsSync(file)) execFileSync("bash", [path.join(__dirname, "prerequisites.sh")], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
	if (!fs.existsSync(file)) throw new Error(`${file} is missing after test/support/prerequisites.sh`);
	return file;
}

export interface K8sObject {
	apiVersion: string;
	kind: string;
	metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
	// Kubernetes objects are checked against their schemas by k8s-schema.ts; the tests read them freely.
	[field: string]: any;
}

/** `kustomize build` of a kustomization directory (relative to the repository), as YAML and objects. */
export function render(dir: string): { yaml: string; objects: K8sObject[] } {
	const yaml = execFileSync(tool(KUSTOMIZE), ["build", path.join(ROOT, dir)], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
	const objects = parseAllDocuments(yaml).map((d) => {
		if (d.errors.length) throw new Error(d.errors.map((e) => e.message).join("; "));
		return d.toJS() as K8sObject;
	});
	return { yaml, objects };
}

/** What k8s-schema.ts finds wrong in a YAML stream of Kubernetes objects (empty: nothing). */
export function schemaProblems(yaml: string): Problem[] {
	const out = execFileSync(path.join(ROOT, "node_modules/.bin/tsx"), [path.join(__dirname, "k8s-schema.ts")], { input: yaml, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
	return JSON.parse(out) as Problem[];
}
