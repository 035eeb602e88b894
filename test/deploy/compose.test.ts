// deploy/compose.yaml, one machine: MongoDB, NATS and every service in services/index.ts in its
// own container, all from the one image. Checked by reading the file (with its YAML merge keys),
// and by `docker compose config` where Docker Compose is installed.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { SERVICES } from "../../services";
import { ROOT } from "../support/deploy-tools";
import { NATS_ACCOUNTS_CONF } from "../support/processes";

const FILE = path.join(ROOT, "deploy/compose.yaml");

interface ComposeService {
	image?: string;
	build?: { context: string; dockerfile: string };
	command?: string[];
	environment?: Record<string, string | null>;
	depends_on?: Record<string, { condition: string }>;
	healthcheck?: { test: string[] };
	volumes?: string[];
}
const compose = parse(fs.readFileSync(FILE, "utf8"), { merge: true }) as { services: Record<string, ComposeService> };
const services = compose.services;

test("runs MongoDB as a replica set and NATS with room for the largest request body", () => {
	expect(services.mongo.image).toMatch(/^mongo:\d/);
	expect(services.mongo.command).toEqual(expect.arrayContaining(["--replSet", "rs0"]));
	expect(services.mongo.healthcheck?.test.join(" ")).toMatch(/rs\.initiate\(/);
	expect(services.nats.image).toMatch(/^nats:\d/);
	const conf = services.nats.volumes!.map((v) => v.split(":")[0]).find((f) => f.endsWith(".conf"))!;
	expect(fs.readFileSync(path.join(ROOT, "deploy", conf), "utf8")).toMatch(/^max_payload: 8MB$/m);
});

test("NATS gives the services its client disconnect advisories, as the cluster tests' nats-server does", () => {
	const conf = services.nats.volumes!.map((v) => v.split(":")[0]).find((f) => f.endsWith(".conf"))!;
	const squash = (text: string) => text.replace(/#.*$/gm, "").replace(/\s+/g, "");
	expect(squash(fs.readFileSync(path.join(ROOT, "deploy", conf), "utf8"))).toContain(squash(NATS_ACCOUNTS_CONF));
});

test("every service in services/index.ts has its own container, and nothing else runs the image", () => {
	const chat = Object.entries(services).filter(([, s]) => s.image === "chat-server:latest");
	expect(chat.map(([name]) => name).sort()).toEqual(Object.keys(SERVICES).sort());
});

describe.each(Object.keys(SERVICES))("service %s", (name) => {
	test("runs that service alone from the image built by deploy/Dockerfile", () => {
		const s = services[name];
		expect(s.environment?.SERVICES).toBe(name);
		expect(s.build).toEqual({ context: "..", dockerfile: "deploy/Dockerfile" });
		expect(fs.existsSync(path.join(path.dirname(FILE), s.build!.context, s.build!.dockerfile))).toBe(true);
	});

	test("reaches MongoDB and NATS, once MongoDB is ready, and answers its health check", () => {
		const s = services[name];
		expect(s.environment?.MONGO_URL).toBe("mongodb://mongo:27017/?replicaSet=rs0");
		expect(s.environment?.TRANSPORTER).toBe("nats://nats:4222");
		expect(s.depends_on?.mongo.condition).toBe("service_healthy");
		expect(s.depends_on?.nats).toBeDefined();
		expect(s.healthcheck?.test.join(" ")).toContain(`127.0.0.1:${s.environment?.HEALTH_PORT}/readyz`);
	});
});

// Docker Compose validates the file against the Compose specification when it is installed.
const hasCompose = (() => {
	try {
		execFileSync("docker", ["compose", "version"], { stdio: "ignore" });
		return true;
	} catch {
		return false;
	}
})();
(hasCompose ? test : test.skip)("docker compose config accepts it", () => {
	execFileSync("docker", ["compose", "-f", FILE, "config", "--quiet"], { stdio: ["ignore", "inherit", "inherit"] });
});
