// Code playgrounds through HTTP: administrators add and remove them, the URL template is an
// RFC 6570 template whose only variable is `code`, a name is unique per language; Zulip's errors
// for every bad input and every role below administrator (nothing changes), POST /register and
// the realm_playgrounds event to every user.
import { startTestApp, type TestApp, type Account, type Cast } from "../support/app";
import { client, expectError, expectSuccess } from "../support/http";
import { snapshotter, type Snapshotter } from "../support/db-snapshot";

let app: TestApp;
let cast: Cast;
let snap: Snapshotter;
const as = (a: Account) => client(app.baseUrl, a);
const good = { name: "Python playground", pygments_language: "Python", url_template: "https://python.example.com?code={code}" };

beforeAll(async () => {
	app = await startTestApp();
	cast = await app.createCast();
	snap = await snapshotter(app);
});
afterAll(async () => {
	await snap.close();
	await app.stop();
});

const registered = async (a: Account) => {
	const res = await as(a).post("/register", { event_types: JSON.stringify(["realm_playgrounds"]) });
	expectSuccess(res);
	return res.body;
};

test("administrators add and remove playgrounds; register and events follow", async () => {
	const reg = await registered(cast.member);
	expect(reg.realm_playgrounds).toEqual([]);
	const res = await as(cast.admin).post("/realm/playgrounds", { ...good, name: " Python playground " });
	expectSuccess(res);
	const id = res.body.id;
	expect(Number.isInteger(id)).toBe(true);
	const other = await as(app.owner).post("/realm/playgrounds", { name: "Python playground", pygments_language: "Python 3", url_template: "https://py3.example.com/{#code}" });
	expectSuccess(other);
	const both = [
		{ id, ...good },
		{ id: other.body.id, name: "Python playground", pygments_language: "Python 3", url_template: "https://py3.example.com/{#code}" },
	];
	expect((await registered(cast.guest)).realm_playgrounds).toEqual(both);
	expectSuccess(await as(cast.admin).delete(`/realm/playgrounds/${other.body.id}`));
	expect((await registered(cast.member)).realm_playgrounds).toEqual([{ id, ...good }]);

	const ev = await as(cast.member).get("/events", { queue_id: reg.queue_id, last_event_id: -1, dont_block: true });
	expectSuccess(ev);
	expect(ev.body.events.map(({ id: _id, ...e }: { id: number }) => e)).toEqual([
		{ type: "realm_playgrounds", realm_playgrounds: [{ id, ...good }] },
		{ type: "realm_playgrounds", realm_playgrounds: both },
		{ type: "realm_playgrounds", realm_playgrounds: [{ id, ...good }] },
	]);
});

test("bad input and roles below administrator change nothing", async () => {
	const existing = (await registered(cast.admin)).realm_playgrounds[0];
	await snap.unchanged(async () => {
		for (const who of [cast.moderator, cast.member, cast.guest]) {
			expectError(await as(who).post("/realm/playgrounds", { ...good, name: "New" }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
			expectError(await as(who).delete(`/realm/playgrounds/${existing.id}`), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator");
		}
		const admin = as(cast.admin);
		for (const key of ["name", "pygments_language", "url_template"]) {
			const params: Record<string, unknown> = { ...good, name: "New" };
			delete params[key];
			expectError(await admin.post("/realm/playgrounds", params), 400, "REQUEST_VARIABLE_MISSING", `Missing '${key}' argument`);
		}
		const bad: Array<[Record<string, unknown>, string]> = [
			[{ pygments_language: "a$b$c" }, "Invalid characters in pygments language"],
			[{ pygments_language: "x".repeat(41) }, "pygments_language is too long (limit: 40 characters)"],
			[{ pygments_language: "  " }, "pygments_language: This field cannot be blank."],
			[{ name: " " }, "name: This field cannot be blank."],
			[{ url_template: "https://template.com?test={test" }, "Invalid URL template."],
			[{ url_template: "https://template.com/{co de}" }, "Invalid URL template."],
			[{ url_template: "" }, "Invalid URL template."],
			[{ url_template: "https://template.com{?test,code}" }, '"code" should be the only variable present in the URL template'],
			[{ url_template: "https://template.com/{other}" }, '"code" should be the only variable present in the URL template'],
			[{ url_template: "https://template.com/" }, '"code" should be the only variable present in the URL template'],
			[{ name: good.name }, "Realm playground with this Realm, Pygments language and Name already exists."],
		];
		for (const [change, msg] of bad) expectError(await admin.post("/realm/playgrounds", { ...good, name: "New", ...change }), 400, "BAD_REQUEST", msg);
		expectError(await admin.delete("/realm/playgrounds/99999"), 400, "BAD_REQUEST", "Invalid playground");
		// As Zulip's URL pattern (<int:playground_id>): no such path.
		expectError(await admin.delete("/realm/playgrounds/abc"), 404, "NOT_FOUND");
	});
});
