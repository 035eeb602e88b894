// An uploaded file is a standard GridFS file in the uploads service's database (bucket "files"),
// as the README's "Files" tells operators: the MongoDB driver's own GridFSBucket finds it by name,
// lists it with its length and chunk size, and reads it back byte-exact, on whichever store the
// suite runs (the embedded store, or MongoDB with MONGO_URL).
import { randomBytes } from "node:crypto";
import mongoose from "mongoose";
import { startTestApp, type Account, type TestApp } from "../support/app";

let app: TestApp;
let alice: Account;
let conn: mongoose.Connection;

beforeAll(async () => {
	app = await startTestApp();
	alice = await app.createUser({ full_name: "Alice" });
	conn = await mongoose.createConnection(process.env.TEST_MONGO_URL!).asPromise();
});
afterAll(async () => {
	await conn?.close();
	await app?.stop();
});

test("an upload is a GridFS file the driver's GridFSBucket lists and reads byte-exact", async () => {
	const data = randomBytes(700 * 1024);
	const form = new FormData();
	form.append("file", new Blob([data], { type: "application/pdf" }), "handbook.pdf");
	const res = await fetch(`${app.baseUrl}/user_uploads`, { method: "POST", body: form, headers: { Authorization: `Basic ${Buffer.from(`${alice.email}:${alice.api_key}`).toString("base64")}` } });
	const body = (await res.json()) as { url: string };
	expect(res.status).toBe(200);

	const db = conn.useDb(`${app.node.config.dbPrefix}_uploads`).db!;
	const bucket = new mongoose.mongo.GridFSBucket(db, { bucketName: "files" });
	const [file] = await bucket.find({ filename: "handbook.pdf" }).toArray();
	expect(file).toMatchObject({ length: data.length, chunkSize: 255 * 1024, filename: "handbook.pdf", metadata: { path_id: body.url.replace(/^\/user_uploads\//, ""), content_type: "application/pdf" } });
	expect(await db.collection("files.chunks").countDocuments({ files_id: file._id })).toBe(3);

	const parts: Buffer[] = [];
	for await (const part of bucket.openDownloadStream(file._id)) parts.push(part as Buffer);
	expect(Buffer.concat(parts).equals(data)).toBe(true);
	// By name too, as mongofiles' get does.
	const named: Buffer[] = [];
	for await (const part of bucket.openDownloadStreamByName("handbook.pdf")) named.push(part as Buffer);
	expect(Buffer.concat(named).equals(data)).toBe(true);
});
