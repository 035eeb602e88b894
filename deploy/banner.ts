// What `npm start` prints on a terminal once the gateway listens: where the API is, the owner's
// credentials file, and how to add users.
import fs from "node:fs";
import path from "node:path";

export function banner(o: { url: string; dataDir: string }): string {
	const rc = path.resolve(o.dataDir, "zuliprc");
	const lines = [
		"",
		`  Team chat server ready: ${o.url}`,
		fs.existsSync(rc) ? `  Owner's credentials (a zuliprc for any Zulip client): ${rc}` : undefined,
		`  Add a user:  npm run manage -- create-user --email alice@example.com --name "Alice" --password 'secret123'`,
		`  Their zuliprc:  npm run manage -- zuliprc --email alice@example.com`,
		"",
	];
	return lines.filter((l) => l !== undefined).join("\n") + "\n";
}
