// What an outgoing webhook may reach. A bot's URL is user input aimed at the network the server
// sits in, so, as Zulip's production setup does with its Smokescreen proxy, loopback, private,
// link-local (cloud metadata at 169.254.169.254 among them), unique-local, carrier-grade NAT,
// multicast and reserved addresses are refused unless the operator allows their network
// (OUTGOING_WEBHOOK_ALLOWED_NETWORKS). The check runs on the resolved address, inside the lookup
// the connection itself uses, so the address checked is the address connected to (no DNS
// rebinding between the two).
import dns from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

const DENIED_V4 = ["0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4"];
const DENIED_V6 = ["::/127", "64:ff9b::/96", "100::/64", "2001:db8::/32", "fc00::/7", "fe80::/10", "ff00::/8"];

/** A call refused because of where it would go (Smokescreen answers these with 407). */
export class RefusedAddress extends Error {
	constructor(readonly address: string) {
		super(`The address ${address} is in a private or disallowed network.`);
		this.name = "RefusedAddress";
	}
}

function addCidr(list: BlockList, cidr: string): void {
	const [net, bits, extra] = cidr.trim().split("/");
	const family = isIP(net);
	const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
	if (!family || extra !== undefined || !/^\d+$/.test(bits ?? "0") || prefix > (family === 6 ? 128 : 32)) throw new Error(`OUTGOING_WEBHOOK_ALLOWED_NETWORKS: "${cidr}" is not a CIDR (e.g. 127.0.0.0/8)`);
	list.addSubnet(net, prefix, family === 6 ? "ipv6" : "ipv4");
}

/** An IPv4 address written as IPv6 (::ffff:a.b.c.d or ::ffff:xxxx:xxxx) is judged as IPv4. */
function unmapped(address: string): { address: string; family: "ipv4" | "ipv6" } {
	if (isIP(address) === 4) return { address, family: "ipv4" };
	const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
	if (dotted) return { address: dotted[1], family: "ipv4" };
	const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
	if (hex) {
		const [hi, lo] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
		return { address: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, family: "ipv4" };
	}
	return { address, family: "ipv6" };
}

export interface NetworkGuard {
	/** Whether a call may go to this IP address. */
	allows(address: string): boolean;
	/** A lookup for http.request: resolves, keeps the allowed addresses, refuses when none is left. */
	lookup: LookupFunction;
}

export function networkGuard(allowedCidrs: string[]): NetworkGuard {
	const denied = new BlockList();
	for (const c of DENIED_V4) addCidr(denied, c);
	for (const c of DENIED_V6) addCidr(denied, c);
	const allowed = new BlockList();
	for (const c of allowedCidrs) addCidr(allowed, c);
	const allows = (raw: string) => {
		const { address, family } = unmapped(raw.replace(/^\[|\]$/g, ""));
		return allowed.check(address, family) || !denied.check(address, family);
	};
	const lookup: LookupFunction = (hostname, options, callback) => {
		dns.lookup(hostname, { all: true, family: options.family, hints: options.hints }, (err, addresses) => {
			if (err) return callback(err, "", 4);
			const ok = addresses.filter((a) => allows(a.address));
			if (!ok.length) return callback(new RefusedAddress(addresses[0]?.address ?? hostname), "", 4);
			if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, ok);
			callback(null, ok[0].address, ok[0].family);
		});
	};
	return { allows, lookup };
}
