// The address a request comes from, for the per-address limits. X-Forwarded-For is anyone's to
// write, so it is read only when the connection comes from a proxy named in TRUSTED_PROXIES, and
// then from the right: each hop a trusted proxy appended is skipped, and the first address that is
// not a trusted proxy is the client (what nginx's real_ip_recursive does). Entries to its left
// were written by the client itself and are never believed.
import { BlockList, isIP } from "node:net";
import type { IncomingMessage } from "node:http";

/** `::ffff:1.2.3.4` (an IPv4 peer on a dual-stack socket) as `1.2.3.4`, so one client has one key. */
function plain(address: string): string {
	return address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

function proxyList(entries: string[]): BlockList {
	const list = new BlockList();
	for (const entry of entries) {
		const [address, bits] = entry.split("/");
		const family = isIP(address);
		if (!family || (bits !== undefined && !/^\d+$/.test(bits))) throw new Error(`TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range`);
		const type = family === 4 ? "ipv4" : "ipv6";
		if (bits === undefined) list.addAddress(address, type);
		else list.addSubnet(address, Number(bits), type);
	}
	return list;
}

/** A function giving each request's client address, trusting X-Forwarded-For only from `trustedProxies`. */
export function clientAddressOf(trustedProxies: string[]): (req: IncomingMessage) => string {
	const proxies = proxyList(trustedProxies);
	const trusted = (address: string) => {
		const family = isIP(address);
		return family !== 0 && proxies.check(address, family === 4 ? "ipv4" : "ipv6");
	};
	return (req) => {
		let address = plain(req.socket.remoteAddress ?? "unknown");
		if (!trustedProxies.length || !trusted(address)) return address;
		const header = req.headers["x-forwarded-for"];
		const hops = (Array.isArray(header) ? header.join(",") : (header ?? "")).split(",").map((h) => plain(h.trim()));
		while (hops.length && trusted(address)) {
			const next = hops.pop()!;
			if (!isIP(next)) break;
			address = next;
		}
		return address;
	};
}
