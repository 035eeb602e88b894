// An uploads replica lost in the middle of a transfer: two `uploads` replicas, each its own process
// over NATS, the gateway spreading a file's chunk calls over both. One replica is frozen
// (SIGSTOP) while a file streams in, so the chunk call sent to it hangs, then killed (SIGKILL):
// nats-server reports its connection closed, the call is rejected, and the gateway sends the same
// chunk again to the other replica (uploads.writeChunk stores a chunk by its number, so a second
// write of it is harmless; moleculer.config.ts retries it, and uploads.readChunk). The upload
// completes, and the file reads back byte-exact from the replica left.
import http from "node:http";
import { randomBytes } from "node:crypto";
import { SERVICES } from "../../services/index";
import { startCluster, type Cluster } from "../support/cluster";
import { serverPid, waitFor } from "../support/processes";

jest.setTimeout(180_000);

let cluster: Cluster;

beforeAll(async () => {
	const rest = Object.keys(SERVICES)
		.filter((n) => n !== "api" && n !== "uploads")
		.join(",");
	cluster = await startCluster({ name: "uploadloss", nodes: [rest, "uploads", "uploads"] });
});
afterAll(async () => {
	await cluster?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("an upload whose chunk call is caught on a lost uploads replica completes on the other, byte-exact", async () => {
	const auth = `Basic ${Buffer.from(`${cluster.ownerKey.email}:${cluster.ownerKey.api_key}`).toString("base64")}`;
	const warm = async () => {
		const form = new FormData();
		form.append("file", new Blob([randomBytes(600 * 1024)]), "warm.bin");
		return (await fetch(`${cluster.gateways[0]}/user_uploads`, { method: "POST", body: form, headers: { Authorization: auth } })).status === 200;
	};
	// The gateway reaches the uploads service (the cluster counts as up at GET /users/me), then
	// uploads warm every path and spread calls over both replicas.
	await waitFor(warm, "an upload through the gateway");
	for (let i = 0; i < 4; i++) expect(await warm()).toBe(true);

	const data = randomBytes(8 * 1024 * 1024);
	const boundary = "lossboundary";
	const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="survivor.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
	const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
	const url = new URL(`${cluster.gateways[0]}/user_uploads`);
	const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
		const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { Authorization: auth, "Content-Type": `multipart/form-data; boundary=${boundary}`, "Content-Length": String(head.length + data.length + tail.length) } });
		req.on("response", (res) => {
			let body = "";
			res.on("data", (d: Buffer) => (body += d.toString()));
			res.on("end", () => resolve({ status: res.statusCode!, body }));
		});
		req.on("error", reject);
		void (async () => {
			req.write(head);
			// 2 MiB at once, then the rest in 256 KiB pieces at a slow pace, while a replica is lost.
			req.write(data.subarray(0, 2 * 1024 * 1024));
			for (let at = 2 * 1024 * 1024; at < data.length; at += 256 * 1024) {
				await sleep(100);
				req.write(data.subarray(at, at + 256 * 1024));
			}
			req.end(tail);
		})();
	});

	await sleep(1000);
	const victim = serverPid(cluster.nodes[1]);
	process.kill(victim, "SIGSTOP");
	// Calls alternate between the replicas: within a second one is caught on the frozen one.
	await sleep(1500);
	process.kill(victim, "SIGKILL");

	const got = await answer;
	expect([got.status, got.body.slice(0, 200)]).toEqual([200, expect.stringContaining('"result":"success"')]);
	const fileUrl = (JSON.parse(got.body) as { url: string }).url;
	const back = await fetch(`${new URL(cluster.gateways[0]).origin}${fileUrl}`, { headers: { Authorization: auth } });
	expect(back.status).toBe(200);
	expect(Buffer.from(await back.arrayBuffer()).equals(data)).toBe(true);
});
