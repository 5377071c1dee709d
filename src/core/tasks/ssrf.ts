// Keeps callbacks away from private networks: an address is refused when it is
// loopback, private, link-local, unique-local, CGNAT, multicast, reserved or
// unspecified (IPv4, IPv6, and IPv4 inside IPv6). Host names are checked after
// resolution, in the socket's own lookup, so a name cannot be re-resolved to a
// private address between the check and the connection.
import { BlockList, isIP } from "node:net";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";

const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  blocked.addSubnet(net, prefix, "ipv6");
}

/** The IPv4 address embedded in an IPv4-mapped, -compatible or NAT64 IPv6 address. */
function embeddedV4(addr: string): string | undefined {
  const m = /^(?:::ffff:(?:0:)?|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(addr);
  if (m) return m[1];
  const hex = /^(?:::ffff:(?:0:)?|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(addr);
  if (!hex) return undefined;
  const hi = parseInt(hex[1]!, 16);
  const lo = parseInt(hex[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** True when the literal IP address must not receive callbacks. */
export function isPrivateAddress(addr: string): boolean {
  const bare = addr.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, "ipv4");
  if (family === 6) {
    const v4 = embeddedV4(bare);
    if (v4) return blocked.check(v4, "ipv4");
    return blocked.check(bare, "ipv6");
  }
  return false;
}

export class SsrfError extends Error {
  override name = "SsrfError";
  readonly code = "ERR_SSRF_REFUSED";
}

/** Names that always mean this machine, whatever DNS says. */
const LOCAL_NAMES = /^(localhost|localhost\.localdomain|ip6-localhost|ip6-loopback)$|\.localhost$/i;

/**
 * Checks a callback URL before any network use: scheme http(s), and, unless
 * private addresses are allowed, not a private literal address nor a local
 * name. Returns the problem, or undefined when the URL may be tried.
 */
export function callbackUrlProblem(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a valid URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http or https URL";
  if (url.username || url.password) return "must not carry credentials";
  if (allowPrivate) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) ? isPrivateAddress(host) : LOCAL_NAMES.test(host)) return "points to a private or loopback address";
  return undefined;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A drop-in for the socket `lookup` option that refuses private addresses. */
export function guardedLookup(hostname: string, options: { all?: boolean; family?: number | string } | undefined, callback: LookupCallback): void {
  const family = options?.family === 4 || options?.family === "IPv4" ? 4 : options?.family === 6 || options?.family === "IPv6" ? 6 : 0;
  dnsLookup(hostname, { family, all: true }, (err: NodeJS.ErrnoException | null, list: LookupAddress[]) => {
    if (err) return callback(err, []);
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad || list.length === 0) return callback(new SsrfError(`${hostname} resolves to a private or loopback address`), []);
    if (options?.all) return callback(null, list);
    const first = list[0]!;
    callback(null, first.address, first.family);
  });
}
