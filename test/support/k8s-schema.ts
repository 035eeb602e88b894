// Checks Kubernetes objects against the API's schemas as the kubernetes-models package has them,
// twice: each object with its model's JSON-schema validator (types, required fields, enumerations,
// formats), and, since those schemas let unknown fields through, as an object literal of the
// model's TypeScript interface, whose excess-property check names any field the API lacks (a
// misspelt `readinesProbe` would otherwise pass).
//
// A script, not a module for jest: kubernetes-models ships ES modules only, which jest's CommonJS
// runtime cannot load. test/deploy/k8s.test.ts runs it with tsx: a YAML stream on stdin, and on
// stdout a JSON array of problems (empty when every object passes).
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { parseAllDocuments } from "yaml";

interface K8sObject {
	apiVersion: string;
	kind: string;
	metadata?: { name?: string };
}

export interface Problem {
	object: string;
	problem: string;
}

const ROOT = path.resolve(__dirname, "../..");

const label = (o: K8sObject) => `${o.kind}/${o.metadata?.name ?? "?"}`;

/** The model's module: `apps/v1` → kubernetes-models/apps/v1/<Kind>, core `v1` → kubernetes-models/v1/<Kind>. */
function modelPath(o: K8sObject): string {
	if (!/^([a-z0-9.-]+\/)?v\d+(alpha\d+|beta\d+)?$/.test(o.apiVersion) || !/^[A-Z][A-Za-z0-9]*$/.test(o.kind)) throw new Error(`not a Kubernetes type: ${o.apiVersion} ${o.kind}`);
	return `kubernetes-models/${o.apiVersion}/${o.kind}`;
}

async function validateWithSchemas(objects: K8sObject[]): Promise<Problem[]> {
	const problems: Problem[] = [];
	for (const o of objects) {
		try {
			const mod = (await import(modelPath(o))) as Record<string, new (data: unknown) => { validate(): void }>;
			const Model = mod[o.kind];
			if (!Model) throw new Error(`kubernetes-models has no ${o.kind} in ${o.apiVersion}`);
			new Model(o).validate();
		} catch (err) {
			problems.push({ object: label(o), problem: (err as Error).message });
		}
	}
	return problems;
}

/** Type-checks `const oN: I<Kind> = <object>;` for every object, in one program. */
function checkFieldNames(objects: K8sObject[]): Problem[] {
	const file = path.join(ROOT, "k8s-objects.check.ts");
	const lines: string[] = [];
	const owner: number[] = []; // line → object index
	objects.forEach((o, i) => {
		lines.push(`import type { I${o.kind} as T${i} } from ${JSON.stringify(modelPath(o))};`);
		owner.push(i);
	});
	objects.forEach((o, i) => {
		const body = `export const o${i}: T${i} = ${JSON.stringify(o, null, 1)};`.split("\n");
		lines.push(...body);
		owner.push(...body.map(() => i));
	});
	const source = lines.join("\n");
	const options: ts.CompilerOptions = {
		strict: true,
		noEmit: true,
		skipLibCheck: true,
		target: ts.ScriptTarget.ES2023,
		module: ts.ModuleKind.ESNext,
		moduleResolution: ts.ModuleResolutionKind.Bundler,
		lib: ["lib.es2023.d.ts"],
		types: [],
	};
	const host = ts.createCompilerHost(options);
	const getSourceFile = host.getSourceFile.bind(host);
	host.getSourceFile = (name, version, ...rest) => (path.resolve(name) === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest));
	const fileExists = host.fileExists.bind(host);
	host.fileExists = (name) => path.resolve(name) === file || fileExists(name);
	const program = ts.createProgram([file], options, host);
	const sf = program.getSourceFile(file)!;
	return [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)].map((d) => {
		const line = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line;
		return { object: label(objects[owner[line] ?? 0]), problem: ts.flattenDiagnosticMessageText(d.messageText, " ") };
	});
}

async function main() {
	const docs = parseAllDocuments(fs.readFileSync(0, "utf8"));
	const objects: K8sObject[] = [];
	const problems: Problem[] = [];
	for (const d of docs) {
		if (d.errors.length) problems.push({ object: "(YAML)", problem: d.errors.map((e) => e.message).join("; ") });
		else if (d.contents) objects.push(d.toJS() as K8sObject);
	}
	problems.push(...(await validateWithSchemas(objects)));
	problems.push(...checkFieldNames(objects.filter((o) => !problems.some((p) => p.object === label(o)))));
	process.stdout.write(JSON.stringify(problems));
}

main().catch((err) => {
	process.stderr.write(`${(err as Error).stack}\n`);
	process.exit(1);
});
