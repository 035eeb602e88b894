// The gateway bench's floor: bare Node HTTP answering every request with the JSON of GET
// /users/me (BARE_BODY), serialized per request as the gateway does, on 127.0.0.1:PORT. No
// framework, no authentication, no bus: what any Node HTTP server costs per request.
import http from "node:http";

const body = JSON.parse(process.env.BARE_BODY ?? "{}") as unknown;
const port = Number(process.env.PORT);

http
	.createServer((_req, res) => {
		const json = JSON.stringify(body);
		res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(json) });
		res.end(json);
	})
	.listen(port, "127.0.0.1");
process.on("SIGTERM", () => process.exit(0));
