// How errors become Zulip's answers: a database that cannot take the call is temporary (503), like
// a service that cannot be reached; anything unknown stays a 500.
import { Errors } from "moleculer";
import { renderError } from "../../shared/errors";

/** An error as it arrives from another node: Moleculer keeps the name of an error it does not know. */
function remote(name: string, message: string): Error {
	const err = new Error(message);
	err.name = name;
	return err;
}

test.each(["MongoServerSelectionError", "MongoNetworkError", "MongoNetworkTimeoutError", "MongoNotPrimaryError", "MongoTopologyClosedError"])("%s is 503 SERVICE_UNAVAILABLE", (name) => {
	const r = renderError(remote(name, "Server selection timed out after 15000 ms"));
	expect(r.status).toBe(503);
	expect(r.body).toEqual({ result: "error", msg: "Service temporarily unavailable", code: "SERVICE_UNAVAILABLE" });
});

test("a write cut by a store that went away (a bulk write wrapping the network error) is 503, with Retry-After", () => {
	const bulk = Object.assign(remote("MongoBulkWriteError", "read ECONNRESET"), { errorResponse: remote("MongoNetworkError", "read ECONNRESET") });
	const r = renderError(bulk);
	expect([r.status, r.body.code, r.headers["Retry-After"]]).toEqual([503, "SERVICE_UNAVAILABLE", "1"]);
	expect(renderError(remote("MongoPoolClearedError", "Connection pool was cleared")).status).toBe(503);
});

test("a write to a connection the store closed, passed on by the driver as the socket's own EPIPE, is 503; other system errors stay 500", () => {
	const epipe = Object.assign(new Error("This socket has been ended by the other party"), { code: "EPIPE" });
	expect([renderError(epipe).status, renderError(epipe).body.code]).toEqual([503, "SERVICE_UNAVAILABLE"]);
	expect(renderError(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })).status).toBe(503);
	expect(renderError(Object.assign(new Error("no such file"), { code: "ENOENT" })).status).toBe(500);
});

test("a broken service call is 503 too, and an unknown error stays a 500 without its message", () => {
	expect(renderError(new Errors.ServiceNotAvailableError({ action: "users.me" })).status).toBe(503);
	const r = renderError(remote("MongoServerError", "E11000 duplicate key"));
	expect(r.status).toBe(500);
	expect(r.body.msg).toBe("Internal server error");
});
