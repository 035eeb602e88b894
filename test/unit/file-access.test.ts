// Who may read a file without credentials (services/uploads/file-access.ts attachmentForCaller),
// for what the HTTP tests cannot reach: a server without web-public channels serves a visitor
// nothing, even a file whose claims say web-public (a channel made web-public while the setting
// was on), and asks the users service nothing; with it, the organization's spectator access decides.
import { Types, type Model } from "mongoose";
import { attachmentForCaller } from "../../services/uploads/file-access";
import type { AttachmentDoc } from "../../services/uploads/models/attachment";

const doc = (webPublic: boolean): AttachmentDoc => ({
	_id: 1,
	realm_id: 1,
	path_id: "1/ab/cdef/x.txt",
	file_name: "x.txt",
	size: 1,
	content_type: "text/plain",
	owner_id: 9,
	create_time: 0,
	file_id: new Types.ObjectId(),
	messages: [{ id: 5, channel_id: 3, date_sent: 0, is_realm_public: true, is_web_public: webPublic }],
});
const model = (d: AttachmentDoc | null) => ({ findOne: () => ({ lean: async () => d }) }) as unknown as Model<AttachmentDoc>;

/** A visitor's context (no user) whose calls are recorded; users.groupGraph answers `spectator`. */
function visitor(spectator: boolean) {
	const calls: string[] = [];
	return {
		calls,
		ctx: {
			meta: {},
			call: async (name: string) => {
				calls.push(name);
				return { groups: [], active_user_ids: [], realm: {}, spectator_access: spectator };
			},
		},
	};
}

test("a web-public file where the server and the organization allow visitors", async () => {
	const v = visitor(true);
	await expect(attachmentForCaller(v.ctx as any, model(doc(true)), "1/ab/cdef/x.txt", { serverEnabled: true })).resolves.toMatchObject({ _id: 1 });
	expect(v.calls).toEqual(["users.groupGraph"]);
});

test("refused, as a missing file, without web-public channels on the server, without spectator access, or when not web-public", async () => {
	for (const [serverEnabled, spectator, webPublic, asked] of [
		[false, true, true, []],
		[true, false, true, ["users.groupGraph"]],
		[true, true, false, []],
	] as const) {
		const v = visitor(spectator);
		await expect(attachmentForCaller(v.ctx as any, model(doc(webPublic)), "1/ab/cdef/x.txt", { serverEnabled })).rejects.toMatchObject({ code: 404, message: "File not found." });
		expect(v.calls).toEqual(asked);
	}
	const v = visitor(true);
	await expect(attachmentForCaller(v.ctx as any, model(null), "1/none", { serverEnabled: true })).rejects.toMatchObject({ code: 404 });
	expect(v.calls).toEqual([]);
});
