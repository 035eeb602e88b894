// The Kubernetes manifests (deploy/k8s) keep up with the code: every service in services/index.ts
// has its Deployment (running that service alone), autoscaler and disruption budget, listed in
// the kustomization, with resource requests and limits and a non-root security context.
import fs from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import { SERVICES } from "../../services";

const DIR = path.resolve(__dirname, "../../deploy/k8s");

interface Obj {
	kind: string;
	metadata: { name: string; labels?: Record<string, string> };
	spec: any;
}

function objectsOf(file: string): Obj[] {
	return parseAllDocuments(fs.readFileSync(path.join(DIR, file), "utf8")).map((d) => {
		expect(d.errors).toEqual([]);
		return d.toJS() as Obj;
	});
}

const kustomization = objectsOf("kustomization.yaml")[0] as unknown as { resources: string[] };
const all = kustomization.resources.flatMap((f) => objectsOf(f));

test("every file the kustomization lists exists and parses", () => {
	for (const f of kustomization.resources) expect(fs.existsSync(path.join(DIR, f))).toBe(true);
	expect(all.length).toBeGreaterThan(0);
});

describe.each(Object.keys(SERVICES))("service %s", (name) => {
	const find = (kind: string) => all.find((o) => o.kind === kind && o.metadata.name === `chat-${name}`);

	test("has a Deployment running it alone, with resources and a non-root security context", () => {
		const d = find("Deployment");
		expect(d).toBeDefined();
		const pod = d!.spec.template.spec;
		expect(pod.securityContext.runAsNonRoot).toBe(true);
		const [container] = pod.containers;
		expect(container.env).toContainEqual({ name: "SERVICES", value: name });
		expect(container.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
		expect(container.resources.limits).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
		expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
		expect(d!.spec.selector.matchLabels).toEqual({ "app.kubernetes.io/name": "chat", "app.kubernetes.io/component": name });
	});

	test("has readiness and liveness probes", () => {
		const [container] = find("Deployment")!.spec.template.spec.containers;
		expect(container.readinessProbe.httpGet).toBeDefined();
		expect(container.livenessProbe).toBeDefined();
	});

	test("has an autoscaler for that Deployment and a disruption budget for its pods", () => {
		const hpa = find("HorizontalPodAutoscaler");
		expect(hpa?.spec.scaleTargetRef).toEqual({ apiVersion: "apps/v1", kind: "Deployment", name: `chat-${name}` });
		expect(hpa!.spec.minReplicas).toBeGreaterThanOrEqual(2);
		const pdb = find("PodDisruptionBudget");
		expect(pdb?.spec.selector.matchLabels).toEqual({ "app.kubernetes.io/name": "chat", "app.kubernetes.io/component": name });
	});
});
