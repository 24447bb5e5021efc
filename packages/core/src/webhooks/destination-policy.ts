import { BlockList, isIP } from 'node:net';

// Where tenant webhooks may go (no SSRF into the service's own network): pure rules on address text, applied by the
// HTTP adapter to the address it connects to and by the endpoint URL schema to IP literals.

/** IPv4 ranges that are not public (IANA special-purpose registry; its two global entries inside 192.0.0.0/24 refused with it). */
const IPV4_NOT_PUBLIC: readonly (readonly [network: string, prefix: number])[] = [
  ['0.0.0.0', 8], // "this network"; connecting to 0.0.0.0 reaches the local host
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // shared address space, carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, including cloud metadata at 169.254.169.254
  ['172.16.0.0', 12], // private (RFC 1918)
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.88.99.0', 24], // retired 6to4 relay anycast
  ['192.168.0.0', 16], // private (RFC 1918)
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, including broadcast 255.255.255.255
];

/** IPv6 the other way round: only global unicast (2000::/3) minus these blocks can be public, so every local, multicast or unassigned range is refused. */
const IPV6_GLOBAL_UNICAST: readonly (readonly [string, number])[] = [['2000::', 3]];
const IPV6_NOT_PUBLIC: readonly (readonly [string, number])[] = [
  ['2001::', 23], // IETF protocol assignments, including Teredo (2001::/32), whose embedded IPv4 is obfuscated
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
];

const ipv4NotPublic = blockList(IPV4_NOT_PUBLIC, 'ipv4');
const ipv6GlobalUnicast = blockList(IPV6_GLOBAL_UNICAST, 'ipv6');
const ipv6NotPublic = blockList(IPV6_NOT_PUBLIC, 'ipv6');

function blockList(ranges: readonly (readonly [string, number])[], type: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, type);
  return list;
}

/**
 * Whether a webhook may go to this address (`false` for non-public ranges and non-addresses). An IPv6 address carrying an IPv4 one (mapped,
 * compatible, NAT64, 6to4) is judged by it, where packets end up (`::` and `::1` fall under 0.0.0.0/8 this way).
 */
export function isPublicAddress(ip: string): boolean {
  const version = isIP(ip);
  if (version === 4) return !ipv4NotPublic.check(ip, 'ipv4');
  if (version !== 6) return false;
  const hextets = ipv6Hextets(ip);
  const embedded = embeddedIPv4(hextets);
  if (embedded !== undefined) return !ipv4NotPublic.check(embedded, 'ipv4');
  const address = hextets.map((hextet) => hextet.toString(16)).join(':');
  return ipv6GlobalUnicast.check(address, 'ipv6') && !ipv6NotPublic.check(address, 'ipv6');
}

/** The IPv4 address an IPv6 address stands for, if it is one of the forms that carry one. */
function embeddedIPv4(h: readonly number[]): string | undefined {
  const zeros = (from: number, to: number) => h.slice(from, to).every((hextet) => hextet === 0);
  if (zeros(0, 6)) return ipv4(h[6]!, h[7]!); // IPv4-compatible, :: and ::1
  if (zeros(0, 5) && h[5] === 0xffff) return ipv4(h[6]!, h[7]!); // IPv4-mapped
  if (h[0] === 0x64 && h[1] === 0xff9b && zeros(2, 6)) return ipv4(h[6]!, h[7]!); // NAT64
  if (h[0] === 0x2002) return ipv4(h[1]!, h[2]!); // 6to4
  return undefined;
}

const ipv4 = (high: number, low: number): string => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/** The eight 16-bit groups of a valid IPv6 address (zone id dropped, a dotted IPv4 tail converted). */
function ipv6Hextets(ip: string): number[] {
  let text = ip.split('%')[0]!;
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const left = groups(head);
  const right = groups(rest);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The IP address a URL's host is written as, or `undefined` for a name (the WHATWG parser has already made every IPv4 spelling, `127.1`, `0x7f.1`, …, dotted decimal). */
export function literalHostAddress(url: URL): string | undefined {
  const host = url.hostname.startsWith('[') && url.hostname.endsWith(']') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) !== 0 ? host : undefined;
}

/** Whether the URL names a non-public IP address directly (names are judged when resolved, at delivery). */
export function hasNonPublicLiteralHost(url: URL): boolean {
  const address = literalHostAddress(url);
  return address !== undefined && !isPublicAddress(address);
}
