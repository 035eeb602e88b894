// The Kubernetes manifests, as kustomize renders them, without a cluster: the base (deploy/k8s:
// the services, a 3-node NATS cluster and a 3-member MongoDB replica set) and the overlay for
// one's own NATS and MongoDB (deploy/overlays/external). Every object passes the Kubernetes API's
// schemas (kubernetes-models: test/support/k8s-schema.ts); every service in services/index.ts has
// its Deployment (running that service alone), autoscaler and disruption budget, metrics and
// probes, so a new service cannot be forgotten; and the pieces fit: Services select pods and
// name their ports, references point at objects that exist, MONGO_URL and TRANSPORTER name the
// bundled clusters. The Kubernetes examples in deploy/README.md pass the schemas too.
import fs from "node:fs";
import path from "node:path";
import { SERVICES } from "../../services";
import { render, ROOT, schemaProblems, type K8sObject } from "../support/deploy-tools";
import { NATS_ACCOUNTS_CONF } from "../support/processes";

jest.setTimeout(300_000); // the first run may install kustomize (test/support/prerequisites.sh)

const LABELS = (component: string) => ({ "app.kubernetes.io/name": "chat", "app.kubernetes.io/component": component });
const WORKLOADS = ["Deployment", "StatefulSet", "Job"];

let base: { yaml: string; objects: K8sObject[] };
let external: { yaml: string; objects: K8sObject[] };

beforeAll(() => {
	base = render("deploy/k8s");
	external = render("deploy/overlays/external");
});

const find = (objects: K8sObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
const get = (objects: K8sObject[], kind: string, name: string) => {
	const o = find(objects, kind, name);
	if (!o) throw new Error(`no ${kind}/${name}`);
	return o;
};
const podSpec = (o: K8sObject) => o.spec.template.spec;
const envOf = (objects: K8sObject[]) => ({ ...get(objects, "ConfigMap", "chat-config").data, ...get(objects, "Secret", "chat-secrets").stringData });

describe.each([
	["base (deploy/k8s)", () => base],
	["overlay external (deploy/overlays/external)", () => external],
])("%s", (_name, rendered) => {
	test("every object passes the Kubernetes API schemas", () => {
		expect(schemaProblems(rendered().yaml)).toEqual([]);
	});

	test("everything is in the chat namespace", () => {
		for (const o of rendered().objects) if (o.kind !== "Namespace") expect([o.kind, o.metadata.name, o.metadata.namespace]).toEqual([o.kind, o.metadata.name, "chat"]);
	});

	test("every workload runs as non-root, without privilege escalation, with requests and limits", () => {
		for (const w of rendered().objects.filter((o) => WORKLOADS.includes(o.kind))) {
			const pod = podSpec(w);
			expect([w.metadata.name, pod.securityContext.runAsNonRoot]).toEqual([w.metadata.name, true]);
			for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
				expect([w.metadata.name, c.name, c.securityContext?.allowPrivilegeEscalation]).toEqual([w.metadata.name, c.name, false]);
				expect(c.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
				expect(c.resources.limits).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
			}
		}
	});

	test("every Service selects a workload's pods and targets ports they have", () => {
		const { objects } = rendered();
		const pods = objects.filter((o) => ["Deployment", "StatefulSet"].includes(o.kind)).map((w) => ({ labels: w.spec.template.metadata.labels, containers: podSpec(w).containers }));
		for (const s of objects.filter((o) => o.kind === "Service")) {
			const matched = pods.filter((p) => Object.entries(s.spec.selector).every(([k, v]) => p.labels[k] === v));
			expect([s.metadata.name, matched.length > 0]).toEqual([s.metadata.name, true]);
			for (const port of s.spec.ports) {
				const ports = matched.flatMap((p) => p.containers.flatMap((c: { ports?: { name: string; containerPort: number }[] }) => c.ports ?? []));
				const target = port.targetPort ?? port.port;
				expect([s.metadata.name, ports.some((p) => p.name === target || p.containerPort === target)]).toEqual([s.metadata.name, true]);
			}
		}
	});

	test("every ConfigMap and Secret a pod refers to exists", () => {
		const { objects } = rendered();
		const has = (kind: string, name: string) => !!find(objects, kind, name);
		for (const w of objects.filter((o) => WORKLOADS.includes(o.kind))) {
			const pod = podSpec(w);
			for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
				for (const from of c.envFrom ?? []) {
					if (from.configMapRef) expect([w.metadata.name, from.configMapRef.name, has("ConfigMap", from.configMapRef.name)]).toEqual([w.metadata.name, from.configMapRef.name, true]);
					if (from.secretRef) expect([w.metadata.name, from.secretRef.name, has("Secret", from.secretRef.name)]).toEqual([w.metadata.name, from.secretRef.name, true]);
				}
				for (const e of c.env ?? []) {
					const ref = e.valueFrom?.secretKeyRef;
					if (ref) expect([w.metadata.name, ref.name, get(objects, "Secret", ref.name).stringData?.[ref.key] !== undefined]).toEqual([w.metadata.name, ref.name, true]);
				}
			}
			for (const v of pod.volumes ?? []) {
				if (v.configMap) expect([w.metadata.name, has("ConfigMap", v.configMap.name)]).toEqual([w.metadata.name, true]);
				if (v.secret) expect([w.metadata.name, has("Secret", v.secret.secretName)]).toEqual([w.metadata.name, true]);
			}
		}
	});

	describe.each(Object.keys(SERVICES))("service %s", (name) => {
		const deployment = () => get(rendered().objects, "Deployment", `chat-${name}`);

		test("has a Deployment running it alone, reading chat-config and chat-secrets", () => {
			const d = deployment();
			expect(d.spec.selector.matchLabels).toEqual(LABELS(name));
			expect(d.spec.template.metadata.labels).toMatchObject(LABELS(name));
			const [container] = podSpec(d).containers;
			expect(container.env).toContainEqual({ name: "SERVICES", value: name });
			expect(container.envFrom).toEqual([{ configMapRef: { name: "chat-config" } }, { secretRef: { name: "chat-secrets" } }]);
		});

		test("rolls out without taking a ready pod away first, and has readiness and liveness probes", () => {
			const d = deployment();
			expect(d.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
			const [container] = podSpec(d).containers;
			expect(container.readinessProbe.httpGet).toBeDefined();
			expect(container.livenessProbe).toBeDefined();
		});

		test("exposes its Prometheus metrics on METRICS_PORT with scrape annotations", () => {
			const d = deployment();
			const port = envOf(rendered().objects).METRICS_PORT;
			expect(port).toMatch(/^[1-9]\d*$/);
			expect(d.spec.template.metadata.annotations).toEqual({ "prometheus.io/scrape": "true", "prometheus.io/port": port, "prometheus.io/path": "/metrics" });
			expect(podSpec(d).containers[0].ports).toContainEqual({ name: "metrics", containerPort: Number(port) });
		});

		test("has an autoscaler for that Deployment and a disruption budget for its pods", () => {
			const hpa = get(rendered().objects, "HorizontalPodAutoscaler", `chat-${name}`);
			expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: "apps/v1", kind: "Deployment", name: `chat-${name}` });
			expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
			// The autoscaler owns the count: a replicas field would fight it on every apply.
			expect(deployment().spec.replicas).toBeUndefined();
			const pdb = get(rendered().objects, "PodDisruptionBudget", `chat-${name}`);
			expect(pdb.spec.selector.matchLabels).toEqual(LABELS(name));
		});
	});
});

describe("base: the bundled NATS cluster and MongoDB replica set", () => {
	test("NATS: a 3-node StatefulSet whose routes name each node through the headless Service", () => {
		const sts = get(base.objects, "StatefulSet", "nats");
		expect(sts.spec.replicas).toBe(3);
		const headless = get(base.objects, "Service", sts.spec.serviceName);
		expect(headless.spec.clusterIP).toBe("None");
		const conf: string = get(base.objects, "ConfigMap", "nats-config").data["nats.conf"];
		const routes = [...conf.matchAll(/nats-route:\/\/([\w.-]+):(\d+)/g)].map((m) => `${m[1]}:${m[2]}`);
		expect(routes).toEqual([0, 1, 2].map((i) => `nats-${i}.${sts.spec.serviceName}:6222`));
		expect(podSpec(sts).containers[0].ports).toContainEqual({ name: "cluster", containerPort: 6222 });
		expect(conf).toMatch(/max_payload: 8MB/);
		// Client disconnect advisories for the services (shared/node-loss.ts), as in the cluster tests.
		const squash = (text: string) => text.replace(/#.*$/gm, "").replace(/\s+/g, "");
		expect(squash(conf)).toContain(squash(NATS_ACCOUNTS_CONF));
	});

	test("TRANSPORTER is the NATS client Service", () => {
		const url = new URL(envOf(base.objects).TRANSPORTER);
		expect(url.protocol).toBe("nats:");
		const svc = get(base.objects, "Service", url.hostname);
		expect(svc.spec.selector).toEqual(LABELS("nats"));
		expect(svc.spec.ports.map((p: { port: number }) => p.port)).toContain(Number(url.port));
	});

	test("MongoDB: a 3-member StatefulSet with a volume each, the replica set named in its arguments", () => {
		const sts = get(base.objects, "StatefulSet", "mongo");
		expect(sts.spec.replicas).toBe(3);
		expect(get(base.objects, "Service", sts.spec.serviceName).spec.clusterIP).toBe("None");
		const [claim] = sts.spec.volumeClaimTemplates;
		expect(podSpec(sts).containers[0].volumeMounts).toContainEqual({ name: claim.metadata.name, mountPath: "/data/db" });
		expect(podSpec(sts).containers[0].image).toMatch(/^mongo:\d/);
		expect(podSpec(sts).containers[0].args).toContain("--replSet=rs0");
	});

	test("MONGO_URL names every member and the replica set, as the initiation Job does", () => {
		const sts = get(base.objects, "StatefulSet", "mongo");
		const members = [0, 1, 2].map((i) => `mongo-${i}.${sts.spec.serviceName}:27017`);
		const url = envOf(base.objects).MONGO_URL as string;
		const m = /^mongodb:\/\/(?:[^@/]+@)?([^/]+)\/\?(.*)$/.exec(url);
		expect(m).not.toBeNull();
		expect(m![1].split(",")).toEqual(members);
		expect(new URLSearchParams(m![2]).get("replicaSet")).toBe("rs0");
		const job = get(base.objects, "Job", "mongo-init");
		expect(podSpec(job).containers[0].env).toContainEqual({ name: "MEMBERS", value: members.join(",") });
		expect(podSpec(job).containers[0].args.join("\n")).toMatch(/rs\.initiate\(\{ _id: "rs0", members \}\)/);
	});
});

test("the Kubernetes examples in deploy/README.md pass the API schemas", () => {
	const readme = fs.readFileSync(path.join(ROOT, "deploy/README.md"), "utf8");
	const examples = [...readme.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
	expect(examples.length).toBeGreaterThan(0);
	expect(schemaProblems(examples.join("---\n"))).toEqual([]);
});

describe("overlay external", () => {
	test("drops the bundled NATS and MongoDB and keeps everything else", () => {
		const bundled = (o: K8sObject) => ["nats", "mongo", "mongo-init"].includes(o.metadata.labels?.["app.kubernetes.io/component"] ?? "");
		const ids = (objects: K8sObject[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();
		expect(external.objects.filter(bundled)).toEqual([]);
		expect(ids(external.objects)).toEqual(ids(base.objects.filter((o) => !bundled(o))));
		expect(base.objects.filter(bundled).length).toBeGreaterThanOrEqual(10);
	});

	test("sets TRANSPORTER and MONGO_URL to the operator's own, and nothing else in the configuration", () => {
		const [b, e] = [envOf(base.objects), envOf(external.objects)];
		expect(e.TRANSPORTER).toMatch(/^nats:\/\//);
		expect(e.TRANSPORTER).not.toBe(b.TRANSPORTER);
		expect(e.MONGO_URL).toMatch(/^mongodb:\/\/.*replicaSet=/);
		expect(e.MONGO_URL).not.toBe(b.MONGO_URL);
		expect({ ...e, TRANSPORTER: "", MONGO_URL: "" }).toEqual({ ...b, TRANSPORTER: "", MONGO_URL: "" });
	});
});
