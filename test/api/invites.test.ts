// Invitations through HTTP: POST /invites with every parameter's good and bad values (Zulip's
// errors, nothing stored or emailed on a refusal), INVITATION_FAILED's rule for which failures stop
// the whole request, GET /invites, revoking and resending, reusable links, the sign-up page (as
// JSON; the browser test drives the HTML form), what accepting creates, invites_changed, the
// POST /register keys, and the daily and seat limits.
import { sentEmails, type Mail } from "../support/emails";
import { startTestApp, type Account, type TestApp } from "../support/app";
import { client, expectError, expectSuccess, type Client, type Response } from "../support/http";
import { snapshotter, diffSnapshots, type Snapshotter } from "../support/db-snapshot";
import { recordEvents } from "../support/events";
import { clock } from "../../shared/clock";

/** The emails written so far, oldest first. */
const mails = (app: TestApp): Mail[] => sentEmails(app.dataDir);

/** A sign-up link's path on the test gateway (links name the organization's URL, http://chat.test). */
const origin = (app: TestApp) => app.baseUrl.replace(/\/api\/v1$/, "");
const onGateway = (app: TestApp, link: string) => `${origin(app)}${new URL(link).pathname}`;

async function postJson(url: string, body: unknown): Promise<Response> {
	const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
	return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

describe("invitations", () => {
	let app: TestApp;
	let owner: Client;
	let admin: Account;
	let member: Account;
	let member2: Account;
	let guest: Account;
	let moderator: Account;
	let snap: Snapshotter;
	const as = (a: Account) => client(app.baseUrl, a);
	let general: number;
	let lounge: number;
	let vault: number;
	let ownGroup: number;
	let ownersGroup: number;
	let adminsGroupId: number;
	let membersGroupId: number;

	beforeAll(async () => {
		app = await startTestApp({ invitesDailyLimit: 1000 });
		owner = client(app.baseUrl, app.owner);
		({ admin, member, member2, guest, moderator } = await app.createCast());
		const channel = async (name: string, extra: Record<string, unknown> = {}) => {
			expectSuccess(await owner.post("/users/me/subscriptions", { subscriptions: [{ name }], ...extra }));
			return (await owner.get("/get_stream_id", { stream: name })).body.stream_id as number;
		};
		general = await channel("general");
		lounge = await channel("lounge");
		vault = await channel("vault", { invite_only: true });
		expectSuccess(await owner.post("/default_streams", { stream_id: general }));
		const group = async (c: Client, name: string) => {
			expectSuccess(await c.post("/user_groups/create", { name, description: name, members: [] }));
			const groups = (await owner.get("/user_groups")).body.user_groups as Array<{ id: number; name: string }>;
			return groups.find((g) => g.name === name)!.id;
		};
		ownGroup = await group(as(member), "member's own");
		ownersGroup = await group(owner, "owner's");
		const groups = (await owner.get("/user_groups")).body.user_groups as Array<{ id: number; name: string }>;
		adminsGroupId = groups.find((g) => g.name === "role:administrators")!.id;
		membersGroupId = groups.find((g) => g.name === "role:members")!.id;
		snap = await snapshotter(app);
	});

	afterAll(async () => {
		clock.reset();
		await snap?.close();
		await app?.stop();
	});

	/** Runs a refused request and proves it stored nothing and emailed nobody. */
	async function refused(run: () => Promise<Response>, status: number, code: string, msg: string | RegExp) {
		const before = await snap.take();
		const sent = mails(app).length;
		const res = await run();
		expectError(res, status, code, msg);
		expect(diffSnapshots(before, await snap.take())).toEqual([]);
		expect(mails(app).length).toBe(sent);
		return res.body;
	}

	const invite = (c: Client, params: Record<string, unknown>) => c.post("/invites", { stream_ids: [], ...params });

	describe("POST /invites", () => {
		test("invites every address (commas, newlines, `Name <address>`), emails each a link, and lists them", async () => {
			const seen = await recordEvents(app, ["invites.changed"]);
			const queue = async (a: Account) => (await as(a).post("/register", { event_types: ["invites_changed"] })).body.queue_id as string;
			const [adminQueue, member2Queue] = [await queue(admin), await queue(member2)];
			const sent = mails(app).length;
			expectSuccess(await invite(as(member), { invitee_emails: "ann@example.com, Bob B <bob@example.com>\ncat@example.com,\n", stream_ids: [general, lounge] }));
			const out = mails(app).slice(sent);
			expect(out.map((m) => m.to).sort()).toEqual(["ann@example.com", "bob@example.com", "cat@example.com"]);
			for (const m of out) {
				expect(m.subject).toContain("invited you to join");
				expect(m.link).toMatch(/^http:\/\/chat\.test\/accounts\/do_confirm\/[A-Za-z0-9]+$/);
			}
			const mine = (await as(member).get("/invites")).body.invites;
			expect(mine.map((i: any) => i.email).sort()).toEqual(["ann@example.com", "bob@example.com", "cat@example.com"]);
			const now = Math.floor(Date.now() / 1000);
			expect(mine[0]).toEqual({
				email: expect.any(String),
				invited_by_user_id: member.user_id,
				invited: expect.any(Number),
				expiry_date: expect.any(Number),
				id: expect.any(Number),
				invited_as: 400,
				is_multiuse: false,
				notify_referrer_on_join: true,
			});
			// The server's default validity: 14400 minutes.
			expect(Math.abs(mine[0].expiry_date - (now + 14400 * 60))).toBeLessThan(60);
			// Others see their own only; administrators see all.
			expect((await as(member2).get("/invites")).body.invites).toEqual([]);
			expect((await as(admin).get("/invites")).body.invites.length).toBeGreaterThanOrEqual(3);
			// invites_changed goes to the administrators and the inviter.
			expect(seen.length).toBeGreaterThan(0);
			expect(seen[0].payload.user_ids).toEqual(expect.arrayContaining([app.owner.user_id, admin.user_id, member.user_id]));
			expect(seen[0].payload.user_ids).not.toContain(member2.user_id);
			const events = async (a: Account, queue_id: string) => (await as(a).get("/events", { queue_id, last_event_id: -1, dont_block: true })).body.events as any[];
			expect((await events(admin, adminQueue)).filter((e) => e.type !== "heartbeat")).toEqual([{ type: "invites_changed", id: 0 }]);
			expect((await events(member2, member2Queue)).filter((e) => e.type !== "heartbeat")).toEqual([]);
		});

		test("each parameter's good values: expiry (null never), role, groups, defaults, notification, welcome text", async () => {
			expectSuccess(
				await invite(as(admin), {
					invitee_emails: "dee@example.com",
					invite_expires_in_minutes: null,
					invite_as: 300,
					group_ids: [ownersGroup],
					include_realm_default_subscriptions: true,
					notify_referrer_on_join: false,
					welcome_message_custom_text: "Read #**general** first.",
				}),
			);
			expectSuccess(await invite(as(member), { invitee_emails: "eve@example.com", invite_expires_in_minutes: 60, invite_as: 600, group_ids: [ownGroup], stream_ids: [general] }));
			const all = (await as(admin).get("/invites")).body.invites;
			expect(all.find((i: any) => i.email === "dee@example.com")).toMatchObject({ expiry_date: null, invited_as: 300, notify_referrer_on_join: false });
			const eve = all.find((i: any) => i.email === "eve@example.com");
			expect(eve.expiry_date - eve.invited).toBe(3600);
		});

		test("a default channel needs no permission to subscribe others; any other channel does", async () => {
			expectSuccess(await owner.patch("/realm", { can_add_subscribers_group: JSON.stringify({ new: adminsGroupId }) }));
			try {
				expectSuccess(await invite(as(member), { invitee_emails: "fay@example.com", stream_ids: [general] }));
				await refused(() => invite(as(member), { invitee_emails: "gus@example.com", stream_ids: [general, lounge] }), 400, "BAD_REQUEST", "You do not have permission to subscribe other users to channels.");
			} finally {
				expectSuccess(await owner.patch("/realm", { can_add_subscribers_group: JSON.stringify({ new: membersGroupId }) }));
			}
		});

		test("who may invite: guests, bots, and the organization's can_invite_users_group", async () => {
			await refused(() => invite(as(guest), { invitee_emails: "x1@example.com" }), 400, "BAD_REQUEST", "Not allowed for guest users");
			const bot = await app.createUser({ is_bot: true, bot_owner_id: member.user_id, full_name: "Invite bot" });
			await refused(() => invite(as(bot), { invitee_emails: "x1@example.com" }), 400, "BAD_REQUEST", "This endpoint does not accept bot requests.");
			expectSuccess(await owner.patch("/realm", { can_invite_users_group: JSON.stringify({ new: adminsGroupId }) }));
			try {
				await refused(() => invite(as(member), { invitee_emails: "x1@example.com" }), 400, "BAD_REQUEST", "Insufficient permission");
				const state = (await as(member).post("/register", { fetch_event_types: ["realm", "realm_user"] })).body;
				expect(state.can_invite_others_to_realm).toBe(false);
				expect(state.realm_can_invite_users_group).toBe(adminsGroupId);
				// Removed by Zulip with can_invite_users_group (feature level 321): not sent.
				expect(state).not.toHaveProperty("realm_invite_to_realm_policy");
			} finally {
				expectSuccess(await owner.patch("/realm", { can_invite_users_group: JSON.stringify({ new: membersGroupId }) }));
			}
		});

		test("bad values of every parameter: Zulip's error, nothing stored or sent", async () => {
			const m = as(member);
			const cases: Array<[Client, Record<string, unknown>, string, string]> = [
				[m, { stream_ids: [] }, "REQUEST_VARIABLE_MISSING", "Missing 'invitee_emails' argument"],
				[m, { invitee_emails: "" }, "BAD_REQUEST", "You must specify at least one email address."],
				[m, { invitee_emails: " ,\n, " }, "BAD_REQUEST", "You must specify at least one email address."],
				[m, { invitee_emails: "x@example.com", stream_ids: "nope" }, "BAD_REQUEST", 'Argument "stream_ids" is not valid JSON.'],
				[m, { invitee_emails: "x@example.com", stream_ids: ["a"] }, "BAD_REQUEST", "stream_ids[0] is not an integer"],
				[m, { invitee_emails: "x@example.com", stream_ids: [987654] }, "BAD_REQUEST", "Invalid channel ID 987654. No invites were sent."],
				[m, { invitee_emails: "x@example.com", stream_ids: [general, vault] }, "BAD_REQUEST", `Invalid channel ID ${vault}. No invites were sent.`],
				[m, { invitee_emails: "x@example.com", group_ids: [987654] }, "BAD_REQUEST", "Invalid user group"],
				[m, { invitee_emails: "x@example.com", group_ids: [membersGroupId] }, "BAD_REQUEST", "Insufficient permission"],
				[m, { invitee_emails: "x@example.com", group_ids: [ownersGroup] }, "BAD_REQUEST", "Insufficient permission"],
				[m, { invitee_emails: "x@example.com", group_ids: "[1," }, "BAD_REQUEST", 'Argument "group_ids" is not valid JSON.'],
				[m, { invitee_emails: "x@example.com", invite_as: 200 }, "BAD_REQUEST", "Must be an organization administrator"],
				[m, { invitee_emails: "x@example.com", invite_as: 300 }, "BAD_REQUEST", "Must be an organization administrator"],
				[as(admin), { invitee_emails: "x@example.com", invite_as: 100 }, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner"],
				[m, { invitee_emails: "x@example.com", invite_as: 500 }, "BAD_REQUEST", "Invalid invite_as"],
				[m, { invitee_emails: "x@example.com", invite_as: "member" }, "BAD_REQUEST", "invite_as is not an integer"],
				[m, { invitee_emails: "x@example.com", invite_expires_in_minutes: 0 }, "BAD_REQUEST", "Invalid invite_expires_in_minutes"],
				[m, { invitee_emails: "x@example.com", invite_expires_in_minutes: -5 }, "BAD_REQUEST", "Invalid invite_expires_in_minutes"],
				[m, { invitee_emails: "x@example.com", invite_expires_in_minutes: 10 ** 12 }, "BAD_REQUEST", "Invalid invite_expires_in_minutes"],
				[m, { invitee_emails: "x@example.com", invite_expires_in_minutes: "soon" }, "BAD_REQUEST", "invite_expires_in_minutes is not an integer"],
				[m, { invitee_emails: "x@example.com", include_realm_default_subscriptions: "maybe" }, "BAD_REQUEST", "include_realm_default_subscriptions is not a boolean"],
				[m, { invitee_emails: "x@example.com", notify_referrer_on_join: "yes" }, "BAD_REQUEST", "notify_referrer_on_join is not a boolean"],
				[m, { invitee_emails: "x@example.com", welcome_message_custom_text: "Hi" }, "BAD_REQUEST", "Must be an organization administrator"],
				[m, { invitee_emails: "x@example.com", welcome_message_custom_text: "" }, "BAD_REQUEST", "Must be an organization administrator"],
				[as(admin), { invitee_emails: "x@example.com", welcome_message_custom_text: "x".repeat(8001) }, "BAD_REQUEST", "welcome_message_custom_text is too long (limit: 8000 characters)"],
			];
			for (const [c, params, code, msg] of cases) await refused(() => invite(c, params), 400, code, msg);
			// stream_ids is required (an empty list is allowed).
			await refused(() => m.post("/invites", { invitee_emails: "x@example.com" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'stream_ids' argument");
		});

		test("a moderator may invite moderators (the spec: roles up to the inviter's own)", async () => {
			expectSuccess(await invite(as(moderator), { invitee_emails: "mod2@example.com", invite_as: 300 }));
		});

		test("an invalid address stops the whole request; addresses in use are skipped, the rest invited", async () => {
			const deactivated = await app.createUser({ email: "gone@example.com" });
			expectSuccess(await owner.delete(`/users/${deactivated.user_id}`));
			const body = await refused(
				() => invite(as(member), { invitee_emails: "new1@example.com, not-an-address, gone@example.com" }),
				400,
				"INVITATION_FAILED",
				"Some emails did not validate, so we didn't send any invitations.",
			);
			expect(body).toMatchObject({
				errors: [
					["not-an-address", "Invalid address.", false],
					["gone@example.com", "Account has been deactivated.", true],
				],
				sent_invitations: false,
				daily_limit_reached: false,
				license_limit_reached: false,
			});
			const all = await refused(
				() => invite(as(member), { invitee_emails: `${member2.email}, GONE@example.com, notification-bot@zulip.com` }),
				400,
				"INVITATION_FAILED",
				"We weren't able to invite anyone.",
			);
			expect(all.errors).toEqual([
				[member2.email, "Already has an account.", false],
				["GONE@example.com", "Account has been deactivated.", true],
				["notification-bot@zulip.com", "notification-bot@zulip.com is reserved for system bots", false],
			]);
			const sent = mails(app).length;
			const some = await invite(as(member), { invitee_emails: `${member2.email}, partly@example.com` });
			expectError(some, 400, "INVITATION_FAILED", "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!");
			expect(some.body).toMatchObject({ errors: [[member2.email, "Already has an account.", false]], sent_invitations: true, daily_limit_reached: false, license_limit_reached: false });
			expect(mails(app).slice(sent).map((x) => x.to)).toEqual(["partly@example.com"]);
			expect((await as(member).get("/invites")).body.invites.map((i: any) => i.email)).toContain("partly@example.com");
		});
	});

	describe("managing invitations", () => {
		const idOf = async (c: Client, email: string) => ((await c.get("/invites")).body.invites as any[]).find((i) => i.email === email)?.id as number;

		test("DELETE /invites/{id}: the inviter or an administrator (an owner for an owner's invitation)", async () => {
			expectSuccess(await invite(as(member), { invitee_emails: "rev1@example.com" }));
			expectSuccess(await invite(owner, { invitee_emails: "rev2@example.com", invite_as: 100 }));
			const id1 = await idOf(as(member), "rev1@example.com");
			const id2 = await idOf(owner, "rev2@example.com");
			await refused(() => as(member2).delete(`/invites/${id1}`), 400, "BAD_REQUEST", "Must be an organization administrator");
			await refused(() => as(admin).delete(`/invites/${id2}`), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
			await refused(() => as(guest).delete(`/invites/${id1}`), 400, "BAD_REQUEST", "Not allowed for guest users");
			expectError(await as(guest).get("/invites"), 400, "BAD_REQUEST", "Not allowed for guest users");
			await refused(() => as(guest).post("/invites/multiuse", {}), 400, "BAD_REQUEST", "Not allowed for guest users");
			await refused(() => as(guest).post(`/invites/${id1}/resend`), 400, "BAD_REQUEST", "Not allowed for guest users");
			await refused(() => as(member).delete("/invites/987654"), 400, "BAD_REQUEST", "No such invitation");
			expectSuccess(await as(admin).delete(`/invites/${id1}`));
			expectSuccess(await owner.delete(`/invites/${id2}`));
			expect(await idOf(as(admin), "rev1@example.com")).toBeUndefined();
			await refused(() => as(member).delete(`/invites/${id1}`), 400, "BAD_REQUEST", "No such invitation");
			const link = mails(app).find((m) => m.to === "rev1@example.com")!.link!;
			const res = await postJson(onGateway(app, link), { full_name: "Rev One", password: "secret-123" });
			expectError(res, 400, "BAD_REQUEST", "This invitation has been revoked.");
		});

		test("POST /invites/{id}/resend emails the link again", async () => {
			expectSuccess(await invite(as(member), { invitee_emails: "again@example.com" }));
			const id = await idOf(as(member), "again@example.com");
			const sent = mails(app).length;
			expectSuccess(await as(member).post(`/invites/${id}/resend`));
			const again = mails(app).slice(sent);
			expect(again.map((m) => m.to)).toEqual(["again@example.com"]);
			expect(again[0].link).toBe(mails(app).find((m) => m.to === "again@example.com")!.link);
			await refused(() => as(member2).post(`/invites/${id}/resend`), 400, "BAD_REQUEST", "Must be an organization administrator");
			await refused(() => as(member).post("/invites/987654/resend"), 400, "BAD_REQUEST", "No such invitation");
			expectSuccess(await as(admin).post(`/invites/${id}/resend`));
			// An expired invitation is not sent again.
			expectSuccess(await invite(as(member), { invitee_emails: "stale@example.com", invite_expires_in_minutes: 1 }));
			const stale = await idOf(as(member), "stale@example.com");
			clock.advance(2 * 60_000);
			try {
				await refused(() => as(member).post(`/invites/${stale}/resend`), 400, "BAD_REQUEST", "The invitation has expired.");
			} finally {
				clock.reset();
			}
		});

		test("reusable links: created by administrators, listed, revoked once", async () => {
			await refused(() => as(member).post("/invites/multiuse", {}), 400, "BAD_REQUEST", "Insufficient permission");
			await refused(() => as(admin).post("/invites/multiuse", { invite_as: 100 }), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner");
			await refused(() => as(admin).post("/invites/multiuse", { stream_ids: [987654] }), 400, "BAD_REQUEST", "Invalid channel ID 987654. No invites were sent.");
			await refused(() => as(admin).post("/invites/multiuse", { invite_expires_in_minutes: 0 }), 400, "BAD_REQUEST", "Invalid invite_expires_in_minutes");
			const res = await as(admin).post("/invites/multiuse", { invite_expires_in_minutes: 30, stream_ids: [lounge] });
			expectSuccess(res);
			expect(res.body.invite_link).toMatch(/^http:\/\/chat\.test\/join\/[A-Za-z0-9]+\/$/);
			const listed = ((await as(admin).get("/invites")).body.invites as any[]).find((i) => i.is_multiuse && i.link_url === res.body.invite_link);
			expect(listed).toEqual({ invited_by_user_id: admin.user_id, invited: expect.any(Number), expiry_date: listed.invited + 1800, id: expect.any(Number), link_url: res.body.invite_link, invited_as: 400, is_multiuse: true });
			await refused(() => as(member).delete(`/invites/multiuse/${listed.id}`), 400, "BAD_REQUEST", "Must be an organization administrator");
			await refused(() => as(admin).delete("/invites/multiuse/987654"), 400, "BAD_REQUEST", "No such invitation");
			expectSuccess(await as(admin).delete(`/invites/multiuse/${listed.id}`));
			await refused(() => as(admin).delete(`/invites/multiuse/${listed.id}`), 400, "BAD_REQUEST", "Invitation has already been revoked");
			const page = await fetch(onGateway(app, res.body.invite_link));
			expect(page.status).toBe(400);
			expect(await page.text()).toContain("This invitation has been revoked.");
		});
	});

	describe("accepting", () => {
		/** Notification Bot's direct messages to a user, oldest first. */
		const notes = async (a: Account) =>
			((await as(a).get("/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow: [{ operator: "is", operand: "dm" }] })).body.messages as any[]).filter(
				(m) => m.sender_email === "notification-bot@zulip.com",
			);

		test("creates the user with the role, channels, defaults and groups; Welcome Bot and Notification Bot write", async () => {
			expectSuccess(
				await invite(as(admin), {
					invitee_emails: "zoe@example.com",
					invite_as: 300,
					stream_ids: [lounge],
					group_ids: [ownersGroup],
					include_realm_default_subscriptions: true,
					welcome_message_custom_text: "Read the *handbook*.",
				}),
			);
			const link = mails(app).find((m) => m.to === "zoe@example.com")!.link!;
			const form = await fetch(onGateway(app, link));
			expect(form.status).toBe(200);
			const html = await form.text();
			expect(html).toContain("zoe@example.com");
			expect(html).toMatch(/<form method="post">/);

			// Bad form values refuse and leave the invitation usable.
			await refused(() => postJson(onGateway(app, link), { full_name: "Z", password: "secret-123" }), 400, "BAD_REQUEST", "Name too short!");
			await refused(() => postJson(onGateway(app, link), { full_name: "Zoe Zed", password: "123" }), 400, "BAD_REQUEST", "The password is too weak.");
			await refused(() => postJson(onGateway(app, link), { password: "secret-123" }), 400, "REQUEST_VARIABLE_MISSING", "Missing 'full_name' argument");
			await refused(() => postJson(onGateway(app, link), { full_name: ["Zoe"], password: "secret-123" }), 400, "BAD_REQUEST", "full_name is not a string");

			const seen = await recordEvents(app, ["invites.changed"]);
			const res = await postJson(onGateway(app, link), { full_name: "Zoe Zed", password: "secret-123" });
			expectSuccess(res);
			expect(res.body).toMatchObject({ email: "zoe@example.com", user_id: expect.any(Number) });
			expect(seen.map((e) => e.payload.user_ids)).toEqual([expect.arrayContaining([admin.user_id])]);

			// The invitation and the new account's details (Zulip's account_registered), each as text and HTML.
			const toZoe = mails(app).filter((m) => m.to === "zoe@example.com");
			expect(toZoe.map((m) => m.subject)).toEqual([`${(await as(admin).get("/users/me")).body.full_name} has invited you to join Team chat`, "Team chat on Zulip: Your new account details"]);
			for (const m of toZoe) expect(m.html).toMatch(/^<!DOCTYPE html>/);
			expect(toZoe[1].body).toContain("Your account email: zoe@example.com");
			expect(toZoe[1].headers["list-unsubscribe"]).toMatch(/^<http:\/\/chat\.test\/accounts\/unsubscribe\/welcome\/\w{32}>$/);

			const key = await fetch(`${app.baseUrl}/fetch_api_key`, { method: "POST", body: new URLSearchParams({ username: "zoe@example.com", password: "secret-123" }) });
			const zoe = { email: "zoe@example.com", api_key: ((await key.json()) as any).api_key, user_id: res.body.user_id };
			const me = (await as(zoe).get("/users/me")).body;
			expect(me).toMatchObject({ full_name: "Zoe Zed", role: 300 });
			const subs = (await as(zoe).get("/users/me/subscriptions")).body.subscriptions.map((s: any) => s.name).sort();
			expect(subs).toEqual(["general", "lounge"]);
			expect((await owner.get(`/user_groups/${ownersGroup}/members`)).body.members).toContain(zoe.user_id);

			const dms = (await as(zoe).get("/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: [{ operator: "is", operand: "dm" }] })).body.messages;
			expect(dms.map((m: any) => [m.sender_email, m.content])).toEqual([
				["welcome-bot@zulip.com", expect.stringContaining("Hello, and welcome to Zulip!")],
				["welcome-bot@zulip.com", expect.stringContaining("<em>handbook</em>")],
			]);
			const note = (await notes(admin)).slice(-1);
			expect(note[0].content).toContain("accepted your invitation to join Zulip!");
			expect(note[0].content).toContain("Zoe Zed");

			// Used: the link refuses, nothing more is created.
			await refused(() => postJson(onGateway(app, link), { full_name: "Zoe Again", password: "secret-123" }), 400, "BAD_REQUEST", "This invitation has already been used.");
			expect(((await as(admin).get("/invites")).body.invites as any[]).map((i) => i.email)).not.toContain("zoe@example.com");
		});

		test("a link posted twice at once makes one account", async () => {
			expectSuccess(await invite(as(member), { invitee_emails: "twice@example.com" }));
			const url = onGateway(app, mails(app).find((m) => m.to === "twice@example.com")!.link!);
			const results = await Promise.all([1, 2, 3].map((i) => postJson(url, { full_name: `Twice ${i}`, password: "secret-123" })));
			expect(results.filter((r) => r.status === 200)).toHaveLength(1);
			for (const r of results.filter((r) => r.status !== 200)) expectError(r, 400, "BAD_REQUEST", "This invitation has already been used.");
			expect(((await owner.get("/users")).body.members as any[]).filter((u) => u.delivery_email === "twice@example.com")).toHaveLength(1);
		});

		test("without notify_referrer_on_join or default channels; an empty custom text sends none", async () => {
			expectSuccess(await invite(as(admin), { invitee_emails: "quiet@example.com", notify_referrer_on_join: false, welcome_message_custom_text: "" }));
			const link = mails(app).find((m) => m.to === "quiet@example.com")!.link!;
			const notesBefore = (await notes(admin)).length;
			const res = await postJson(onGateway(app, link), { full_name: "Quiet One", password: "secret-123" });
			expectSuccess(res);
			const key = await fetch(`${app.baseUrl}/fetch_api_key`, { method: "POST", body: new URLSearchParams({ username: "quiet@example.com", password: "secret-123" }) });
			const quiet = { email: "quiet@example.com", api_key: ((await key.json()) as any).api_key, user_id: res.body.user_id };
			expect((await as(quiet).get("/users/me/subscriptions")).body.subscriptions).toEqual([]);
			const dms = (await as(quiet).get("/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: [{ operator: "is", operand: "dm" }] })).body.messages;
			expect(dms).toHaveLength(1);
			const notesAfter = (await notes(admin)).length;
			expect(notesAfter).toBe(notesBefore);
		});

		test("an inviter deactivated since: the invitation still works, nobody is notified", async () => {
			const inviter = await app.createUser({ full_name: "Leaving Soon" });
			expectSuccess(await invite(as(inviter), { invitee_emails: "orphan@example.com" }));
			expectSuccess(await owner.delete(`/users/${inviter.user_id}`));
			const link = mails(app).find((m) => m.to === "orphan@example.com")!.link!;
			expectSuccess(await postJson(onGateway(app, link), { full_name: "Orphan Person", password: "secret-123" }));
			expectSuccess(await owner.post(`/users/${inviter.user_id}/reactivate`));
			expect(await notes(inviter)).toEqual([]);
		});

		test("without custom text, Welcome Bot sends the organization's", async () => {
			await app.node.broker.call("users.setRealmSetting", { name: "realm_welcome_message_custom_text", value: "Our **rules**." });
			try {
				expectSuccess(await invite(as(member), { invitee_emails: "org-text@example.com" }));
				const link = mails(app).find((m) => m.to === "org-text@example.com")!.link!;
				const res = await postJson(onGateway(app, link), { full_name: "Org Text", password: "secret-123" });
				expectSuccess(res);
				const key = await client(app.baseUrl, null).post("/fetch_api_key", { username: "org-text@example.com", password: "secret-123" });
				const user = { email: "org-text@example.com", api_key: key.body.api_key, user_id: res.body.user_id };
				const dms = (await as(user).get("/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: [{ operator: "is", operand: "dm" }] })).body.messages;
				expect(dms.map((m: any) => m.content)).toEqual([expect.stringContaining("Hello, and welcome to Zulip!"), "<p>Our <strong>rules</strong>.</p>"]);
			} finally {
				await app.node.broker.call("users.setRealmSetting", { name: "realm_welcome_message_custom_text", value: "" });
			}
		});

		test("an expired invitation, an unknown link: a clear page, nothing created", async () => {
			expectSuccess(await invite(as(member), { invitee_emails: "late@example.com", invite_expires_in_minutes: 1 }));
			const link = mails(app).find((m) => m.to === "late@example.com")!.link!;
			clock.advance(2 * 60_000);
			try {
				const page = await fetch(onGateway(app, link));
				expect(page.status).toBe(400);
				expect(await page.text()).toContain("This invitation has expired.");
				await refused(() => postJson(onGateway(app, link), { full_name: "Late One", password: "secret-123" }), 400, "BAD_REQUEST", "This invitation has expired.");
				expect(((await as(member).get("/invites")).body.invites as any[]).map((i) => i.email)).not.toContain("late@example.com");
			} finally {
				clock.reset();
			}
			const unknown = await fetch(`${origin(app)}/accounts/do_confirm/nosuchkey`);
			expect(unknown.status).toBe(400);
			expect(await unknown.text()).toContain("This invitation link is not valid.");
		});

		test("a reusable link asks for the address, confirms it by email, then signs up", async () => {
			const res = await as(admin).post("/invites/multiuse", { stream_ids: [lounge], invite_as: 600 });
			const url = onGateway(app, res.body.invite_link);
			expect(await (await fetch(url)).text()).toContain('name="email"');
			await refused(() => postJson(url, { email: "not an address" }), 400, "BAD_REQUEST", "Please enter a valid email address.");
			await refused(() => postJson(url, { email: member.email }), 400, "BAD_REQUEST", "Already has an account.");
			const sent = mails(app).length;
			expectSuccess(await postJson(url, { email: "linked@example.com" }));
			const confirm = mails(app).slice(sent);
			expect(confirm.map((m) => m.to)).toEqual(["linked@example.com"]);
			expectSuccess(await postJson(onGateway(app, confirm[0].link!), { full_name: "Linked Person", password: "secret-123" }));
			const users = (await owner.get("/users")).body.members as any[];
			expect(users.find((u) => u.delivery_email === "linked@example.com")).toMatchObject({ role: 600, full_name: "Linked Person" });
			// A link stays usable for others.
			expectSuccess(await postJson(url, { email: "linked2@example.com" }));
		});
	});

	test("POST /register: the invitation settings Zulip clients read", async () => {
		const state = (await as(member).post("/register", { fetch_event_types: ["realm", "realm_user"] })).body;
		expect(state).toMatchObject({
			realm_invite_required: true,
			realm_can_invite_users_group: membersGroupId,
			realm_create_multiuse_invite_group: adminsGroupId,
			realm_welcome_message_custom_text: "",
			can_invite_others_to_realm: true,
		});
		expect(state).not.toHaveProperty("realm_invite_to_realm_policy");
		expect((await as(guest).post("/register", { fetch_event_types: ["realm_user"] })).body.can_invite_others_to_realm).toBe(false);
	});
});

describe("the daily limit under concurrent requests", () => {
	let app: TestApp;

	beforeAll(async () => {
		app = await startTestApp({ invitesDailyLimit: 5 });
	});

	afterAll(async () => {
		await app?.stop();
	});

	test("requests racing for the day's budget never exceed it together", async () => {
		const owner = client(app.baseUrl, app.owner);
		const results = await Promise.all([0, 1, 2, 3].map((i) => owner.post("/invites", { invitee_emails: `r${i}a@example.com,r${i}b@example.com`, stream_ids: [] })));
		const ok = results.filter((r) => r.status === 200);
		expect(ok).toHaveLength(2);
		for (const r of results.filter((r) => r.status !== 200)) expect(r.body).toMatchObject({ code: "INVITATION_FAILED", daily_limit_reached: true, sent_invitations: false });
		expect(mails(app)).toHaveLength(4);
		expect((await owner.get("/invites")).body.invites).toHaveLength(4);
	});
});

describe("the daily limit and the seat limit", () => {
	let app: TestApp;
	let owner: Client;

	beforeAll(async () => {
		// One human (the owner): three seats, three invitations a day.
		app = await startTestApp({ invitesDailyLimit: 3, seatLimit: 3 });
		owner = client(app.baseUrl, app.owner);
	});

	afterAll(async () => {
		await app?.stop();
	});

	test("INVITATION_FAILED with license_limit_reached or daily_limit_reached; nothing sent", async () => {
		const tooMany = await owner.post("/invites", { invitee_emails: "a@example.com,b@example.com,c@example.com", stream_ids: [] });
		expectError(tooMany, 400, "INVITATION_FAILED", "Your organization does not have enough unused Zulip licenses to invite 3 users.");
		expect(tooMany.body).toMatchObject({ errors: [], sent_invitations: false, license_limit_reached: true, daily_limit_reached: false });
		expect(mails(app)).toEqual([]);

		expectSuccess(await owner.post("/invites", { invitee_emails: "a@example.com,b@example.com", stream_ids: [] }));
		const daily = await owner.post("/invites", { invitee_emails: "c@example.com,d@example.com", stream_ids: [] });
		expectError(daily, 400, "INVITATION_FAILED", /^To protect users, Zulip limits the number of invitations you can send in one day/);
		expect(daily.body).toMatchObject({ errors: [], sent_invitations: false, daily_limit_reached: true, license_limit_reached: false });
		expect(mails(app)).toHaveLength(2);

		// A resend counts too.
		const id = (await owner.get("/invites")).body.invites[0].id;
		expectSuccess(await owner.post(`/invites/${id}/resend`));
		expectError(await owner.post(`/invites/${id}/resend`), 400, "INVITATION_FAILED", /^To protect users/);
		expect(mails(app)).toHaveLength(3);

		// Accepting fills the seats; once all are taken, sign-up is refused.
		for (const [i, to] of ["a@example.com", "b@example.com"].entries()) {
			const link = mails(app).find((m) => m.to === to)!.link!;
			expectSuccess(await postJson(onGateway(app, link), { full_name: `Person ${i}`, password: "secret-123" }));
		}
		const res = await owner.post("/invites/multiuse", {});
		expectSuccess(await postJson(onGateway(app, res.body.invite_link), { email: "c@example.com" }));
		const link = mails(app).find((m) => m.to === "c@example.com")!.link!;
		expectError(await postJson(onGateway(app, link), { full_name: "Person C", password: "secret-123" }), 400, "BAD_REQUEST", /^New members cannot join this organization/);
		expect(((await owner.get("/users")).body.members as any[]).some((u) => u.delivery_email === "c@example.com")).toBe(false);
	});
});
