// Files through real clients from the registries: the Python `zulip` package's upload_file (its
// own method, a multipart body made by requests) and its shipped upload-file command (found with
// its `zulip-api-examples` console script; `zulip-api upload-file` is an empty stub in the
// package, and zulip-js has no upload method). The file is linked in a direct message and read
// back with API keys as Zulip's clients do (HTTP basic auth at /user_uploads/...): by its owner,
// by the message's recipient, and through a temporary URL without credentials; a user who may
// read no message linking it gets 404.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { randomBytes } from "node:crypto";
import sharp from "sharp";
import { startTestApp, type Account, type TestApp } from "../support/app";

const run = promisify(execFile);
const VENV = path.resolve(__dirname, "../../node_modules/.cache/zulip-python/bin");
const PYTHON = path.join(VENV, "python");

let app: TestApp;
let origin: string;
beforeAll(async () => {
	app = await startTestApp();
	origin = new URL(app.baseUrl).origin;
});
afterAll(() => app.stop());

const zuliprc = (a: Account, name: string) => {
	const file = path.join(app.dataDir, name);
	fs.writeFileSync(file, `[api]\nemail=${a.email}\nkey=${a.api_key}\nsite=${origin}\n`);
	return file;
};
const basic = (a: Account) => `Basic ${Buffer.from(`${a.email}:${a.api_key}`).toString("base64")}`;

const SCRIPT = `
import hashlib, io, json, sys, requests, zulip
me = zulip.Client(config_file=sys.argv[1], client="ZulipPython")
friend = zulip.Client(config_file=sys.argv[2], client="ZulipPython")
stranger = zulip.Client(config_file=sys.argv[3], client="ZulipPython")
site = sys.argv[4]
# About 1 MB: several of the store's chunks, the last one partial.
data = bytes((i * 7 + i // 256) % 256 for i in range(1_000_000))
fp = io.BytesIO(data)
fp.name = "measurements 2024.bin"
out = {"sha256": hashlib.sha256(data).hexdigest()}
out["upload"] = me.upload_file(fp)
url = out["upload"]["url"]
out["dm"] = me.send_message({"type": "private", "to": [friend.email], "content": "the [measurements](%s)" % url})
out["attachments"] = me.get_attachments()
def read(client, auth=True, path=None):
    r = requests.get(site + (path or url), auth=(client.email, client.api_key) if auth else None)
    return {"status": r.status_code, "sha256": hashlib.sha256(r.content).hexdigest(), "type": r.headers.get("content-type"), "length": len(r.content)}
out["owner"] = read(me)
out["friend"] = read(friend)
out["stranger"] = read(stranger)
out["temporary"] = friend.call_endpoint(url=url[len("/"):], method="GET")
out["temporary_read"] = read(friend, auth=False, path=out["temporary"]["url"])
print(json.dumps(out))
`;

test("the Python zulip package uploads a file, links it in a message, and its owner and the recipient read it back byte-exact; others get 404", async () => {
	const me = await app.createUser({ full_name: "Uploader" });
	const friend = await app.createUser({ full_name: "Recipient" });
	const stranger = await app.createUser({ full_name: "Stranger" });
	const { stdout } = await run(PYTHON, ["-c", SCRIPT, zuliprc(me, "up-me"), zuliprc(friend, "up-friend"), zuliprc(stranger, "up-stranger"), origin], { maxBuffer: 16 * 1024 * 1024 });
	const out = JSON.parse(stdout);
	for (const call of ["upload", "dm", "attachments", "temporary"]) expect({ call, result: out[call].result }).toEqual({ call, result: "success" });

	expect(out.upload).toMatchObject({ url: expect.stringMatching(/^\/user_uploads\/\d+\/[0-9a-f]{1,2}\/[\w-]{24}\/measurements-2024\.bin$/), filename: "measurements 2024.bin" });
	expect(out.upload.uri).toBe(out.upload.url);
	const [attachment] = out.attachments.attachments;
	expect(attachment).toMatchObject({ name: "measurements 2024.bin", path_id: out.upload.url.replace(/^\/user_uploads\//, ""), size: 1_000_000 });
	expect(attachment.messages.map((m: { id: number }) => m.id)).toEqual([out.dm.id]);

	for (const who of ["owner", "friend", "temporary_read"]) {
		expect({ who, ...out[who] }).toEqual({ who, status: 200, sha256: out.sha256, type: "application/octet-stream", length: 1_000_000 });
	}
	expect(out.stranger.status).toBe(404);
	expect(out.temporary.url).toMatch(/^\/user_uploads\/temporary\/[0-9A-F]+\/measurements-2024\.bin$/);
}, 120_000);

test("the zulip package's upload-file command uploads a file from disk; its owner reads it back with the API key", async () => {
	const me = await app.createUser({ full_name: "Command Line" });
	const other = await app.createUser({ full_name: "Someone Else" });
	const file = path.join(app.dataDir, "diagram.png");
	// A real image (the uploads service makes thumbnails of images): 300 KB of noise, more than a chunk.
	const bytes = await sharp(randomBytes(320 * 320 * 3), { raw: { width: 320, height: 320, channels: 3 } }).png().toBuffer();
	fs.writeFileSync(file, bytes);
	const script = (await run(path.join(VENV, "zulip-api-examples"), ["upload-file"])).stdout.trim();
	const { stdout } = await run(PYTHON, [script, "--config-file", zuliprc(me, "cli-me"), "--file-path", file]);
	const url = /^File URI: (\/user_uploads\/\S+)$/m.exec(stdout)?.[1];
	expect(url).toMatch(/\/diagram\.png$/);

	const got = await fetch(`${origin}${url}`, { headers: { Authorization: basic(me) } });
	expect(got.status).toBe(200);
	expect(got.headers.get("content-type")).toBe("image/png");
	expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);
	// Linked in no message: nobody else reads it.
	expect((await fetch(`${origin}${url}`, { headers: { Authorization: basic(other) } })).status).toBe(404);
}, 120_000);
