// Where an outgoing webhook may go (services/integrations/outgoing/network-guard.ts, http-call.ts):
// the addresses refused unless OUTGOING_WEBHOOK_ALLOWED_NETWORKS allows them, checked on the
// address a host name resolves to (the one connected to), and redirects never followed.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { networkGuard } from "../../services/integrations/outgoing/network-guard";
import { post } from "../../services/integrations/outgoing/http-call";
import { loadConfig } from "../../shared/config";

test.each([
	["127.0.0.1", false],
	["10.20.30.40", false],
	["172.16.0.1", false],
	["192.168.1.1", false],
	["169.254.169.254", false],
	["100.100.100.200", false],
	["0.0.0.0", false],
	["224.0.0.1", false],
	["::1", false],
	["::", false],
	["fd00:ec2::254", false],
	["fe80::1", false],
	["::ffff:127.0.0.1", false],
	["::ffff:7f00:1", false],
	["93.184.215.14", true],
	["2606:2800:21f:cb07:6820:80da:af6b:8b2c", true],
	["::ffff:93.184.215.14", true],
])("%s allowed: %s", (address, allowed) => {
	expect(networkGuard([]).allows(address)).toBe(allowed);
});

test("the operator's networks are allowed, and only those", () => {
	const guard = networkGuard(["127.0.0.0/8", "fd12:3456::/32", "10.1.2.3"]);
	expect([guard.allows("127.0.0.1"), guard.allows("::ffff:127.0.0.1"), guard.allows("fd12:3456::1"), guard.allows("10.1.2.3"), guard.allows("10.1.2.4"), guard.allows("192.168.0.1")]).toEqual([true, true, true, true, false, false]);
});

test("OUTGOING_WEBHOOK_ALLOWED_NETWORKS: comma-separated, none by default", () => {
	const saved = process.env.OUTGOING_WEBHOOK_ALLOWED_NETWORKS;
	try {
		delete process.env.OUTGOING_WEBHOOK_ALLOWED_NETWORKS;
		expect(loadConfig().outgoingWebhookAllowedNetworks).toEqual([]);
		process.env.OUTGOING_WEBHOOK_ALLOWED_NETWORKS = " 127.0.0.0/8, ::1/128 ,";
		expect(loadConfig().outgoingWebhookAllowedNetworks).toEqual(["127.0.0.0/8", "::1/128"]);
	} finally {
		if (saved === undefined) delete process.env.OUTGOING_WEBHOOK_ALLOWED_NETWORKS;
		else process.env.OUTGOING_WEBHOOK_ALLOWED_NETWORKS = saved;
	}
});

test.each(["127.0.0.0/33", "nonsense", "10.0.0.0/8/1", "::/abc"])("a bad CIDR (%s) is refused at start", (cidr) => {
	expect(() => networkGuard([cidr])).toThrow(/OUTGOING_WEBHOOK_ALLOWED_NETWORKS/);
});

describe("calls", () => {
	let server: http.Server;
	let port: number;
	beforeAll(async () => {
		server = http.createServer((req, res) => {
			if (req.url === "/redirect") return void res.writeHead(302, { Location: "http://169.254.169.254/" }).end();
			res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ content: "ok" }));
		});
		await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
		port = (server.address() as AddressInfo).port;
	});
	afterAll(() => new Promise((r) => server.close(r)));
	const limits = (allowed: string[]) => ({ timeoutMs: 5000, maxResponseBytes: 1000, guard: networkGuard(allowed) });
	const body = { contentType: "application/json", data: "{}" };

	test("a host name is judged by the address it resolves to", async () => {
		expect(await post(`http://localhost:${port}/`, body, limits([]))).toMatchObject({ kind: "refused", error: { address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) } });
		const ok = await post(`http://localhost:${port}/`, body, limits(["127.0.0.0/8", "::1/128"]));
		expect(ok).toMatchObject({ kind: "response", status: 200 });
	});

	test("a redirect is the answer, not followed", async () => {
		expect(await post(`http://127.0.0.1:${port}/redirect`, body, limits(["127.0.0.0/8"]))).toMatchObject({ kind: "response", status: 302 });
	});

	test("an answer over the limit is an error", async () => {
		expect(await post(`http://127.0.0.1:${port}/`, body, { ...limits(["127.0.0.0/8"]), maxResponseBytes: 5 })).toMatchObject({ kind: "error", error: { name: "ResponseTooLarge" } });
	});

	test("what is not an http(s) URL is an error, not a call", async () => {
		expect(await post("file:///etc/passwd", body, limits([]))).toMatchObject({ kind: "error" });
	});
});
