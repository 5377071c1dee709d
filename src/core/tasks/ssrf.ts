// Keeps callbacks away from private networks: an address is refused when it is
// loopback, private, link-local, unique-local, CGNAT, multicast, reserved or
// unspecified (IPv4, IPv6, and IPv4 inside IPv6). Host names are checked after
// resolution, in the socket's own lookup, so a name cannot be re-resolved to a
// private address between the check and the connection. Both checks read hosts
// through one normaliser (canonicalHost).
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
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  blocked.addSubnet(net, prefix, "ipv6");
}

/** A host in one canonical form, so that every spelling of an address is judged alike. */
export type CanonicalHost = { kind: "ipv4" | "ipv6"; address: string } | { kind: "name"; name: string };

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted quad included). */
function v6Groups(addr: string): number[] {
  let s = addr;
  const tail: number[] = [];
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    s = s.slice(0, quad.index);
    if (s.endsWith(":") && !s.endsWith("::")) s = s.slice(0, -1);
  }
  const [head, rest] = s.split("::") as [string, string | undefined];
  const h = head ? head.split(":") : [];
  const r = rest ? rest.split(":") : [];
  const fill = rest === undefined ? [] : Array<string>(8 - h.length - r.length - tail.length).fill("0");
  return [...h, ...fill, ...r].map((g) => parseInt(g, 16)).concat(tail);
}

/** The IPv4 address an IPv6 one carries: mapped (::ffff:0:0/96, ::ffff:0:0:0/96), compatible (::/96), NAT64 (64:ff9b::/96) or 6to4 (2002::/16). */
function embeddedV4(addr: string): string | undefined {
  const g = v6Groups(addr);
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const quad = (i: number) => `${g[i]! >> 8}.${g[i]! & 255}.${g[i + 1]! >> 8}.${g[i + 1]! & 255}`;
  if (zero(0, 5) && (g[5] === 0xffff || g[5] === 0)) return quad(6);
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return quad(6);
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return quad(6);
  if (g[0] === 0x2002) return quad(1);
  return undefined;
}

/**
 * A URL's hostname or a resolved address, canonical: lower case, without
 * brackets, zone id or trailing dots, and an IPv6 address that carries an IPv4
 * one as that IPv4 address. The one place hosts are normalised: the check at
 * submit (callbackUrlProblem) and the one at connect (guardedLookup) both judge
 * through isPrivateAddress, which reads hosts through this.
 */
export function canonicalHost(host: string): CanonicalHost {
  const bare = host
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "")
    .toLowerCase();
  const family = isIP(bare);
  if (family === 4) return { kind: "ipv4", address: bare };
  if (family === 6) {
    const v4 = embeddedV4(bare);
    return v4 ? { kind: "ipv4", address: v4 } : { kind: "ipv6", address: bare };
  }
  return { kind: "name", name: bare.replace(/\.+$/, "") };
}

/** Names that always mean this machine, whatever DNS says. */
const LOCAL_NAMES = /^(localhost|localhost\.localdomain|ip6-localhost|ip6-loopback)$|\.localhost$/;

/** True when a host (a literal address in any spelling, or a name) must not receive callbacks; other names are judged by what they resolve to. */
export function isPrivateAddress(host: string): boolean {
  const h = canonicalHost(host);
  if (h.kind === "name") return LOCAL_NAMES.test(h.name);
  return blocked.check(h.address, h.kind);
}

export class SsrfError extends Error {
  override name = "SsrfError";
  readonly code = "ERR_SSRF_REFUSED";
}

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
  if (isPrivateAddress(url.hostname)) return "points to a private or loopback address";
  return undefined;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A drop-in for the socket `lookup` option that refuses private addresses. */
export function guardedLookup(hostname: string, options: { all?: boolean; family?: number | string } | undefined, callback: LookupCallback): void {
  const family = options?.family === 4 || options?.family === "IPv4" ? 4 : options?.family === 6 || options?.family === "IPv6" ? 6 : 0;
  // The name itself first, as at submit: a local name is refused whatever DNS says.
  if (isPrivateAddress(hostname)) return process.nextTick(() => callback(new SsrfError(`${hostname} is a private or loopback host`), []));
  dnsLookup(hostname, { family, all: true }, (err: NodeJS.ErrnoException | null, list: LookupAddress[]) => {
    if (err) return callback(err, []);
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad || list.length === 0) return callback(new SsrfError(`${hostname} resolves to a private or loopback address`), []);
    if (options?.all) return callback(null, list);
    const first = list[0]!;
    callback(null, first.address, first.family);
  });
}
