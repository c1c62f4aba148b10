import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Client addresses for the rate limiter and the guard.
 *
 * uWebSockets reports the socket address in long IPv6 form even for IPv4 clients of a
 * dual-stack listener (`0000:…:ffff:7f00:0001`), so every address is normalised first:
 * IPv4 (also IPv4-mapped IPv6) as dotted quad, IPv6 in RFC 5952 short form.
 * Limits apply per *client key*: the IPv4 address, or the /64 prefix of an IPv6 address
 * (one IPv6 host usually owns a whole /64, so per-address keys would be free to rotate).
 */

function expandV6(s: string): number[] | undefined {
  let text = s.toLowerCase();
  const pct = text.indexOf('%'); // zone id (fe80::1%eth0)
  if (pct >= 0) text = text.slice(0, pct);
  const lastColon = text.lastIndexOf(':');
  const dotted = text.slice(lastColon + 1);
  if (dotted.includes('.')) {
    // an embedded IPv4 tail (::ffff:1.2.3.4) becomes its two 16-bit words
    if (!isIPv4(dotted)) return undefined;
    const o = dotted.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (p: string) =>
    p === '' ? [] : p.split(':').map((h) => (/^[0-9a-f]{1,4}$/.test(h) ? parseInt(h, 16) : NaN));
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  let words: number[];
  if (halves.length === 2) {
    const fill = 8 - head.length - rest.length;
    if (fill < 1) return undefined;
    words = [...head, ...new Array<number>(fill).fill(0), ...rest];
  } else {
    words = head;
  }
  return words.length === 8 && words.every((w) => Number.isInteger(w)) ? words : undefined;
}

/** RFC 5952: no leading zeros, the longest run (≥ 2) of zero words as `::`. */
function compressV6(w: number[]): string {
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (w[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && w[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = w.map((x) => x.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

/** The canonical text of an IP address, or undefined when `s` is not one. */
export function normalizeIp(s: string): string | undefined {
  const t = s.trim();
  if (isIPv4(t)) return t;
  const w = expandV6(t);
  if (!w) return undefined;
  // IPv4-mapped (::ffff:a.b.c.d): the client is an IPv4 host.
  if (w[0] === 0 && w[1] === 0 && w[2] === 0 && w[3] === 0 && w[4] === 0 && w[5] === 0xffff) {
    return `${w[6] >> 8}.${w[6] & 255}.${w[7] >> 8}.${w[7] & 255}`;
  }
  return compressV6(w);
}

/** The key limits are counted under: the IPv4 address, or the IPv6 /64 (`2001:db8:1:2::/64`). */
export function clientKey(ip: string): string {
  if (isIPv4(ip)) return ip;
  const w = expandV6(ip);
  if (!w) return ip;
  return `${compressV6([w[0], w[1], w[2], w[3], 0, 0, 0, 0])}/64`;
}

/** A shortened key for public views (`/guard` without the admin token). */
export function maskKey(key: string): string {
  if (isIPv4(key)) return key.replace(/\.\d+$/, '.x');
  const w = expandV6(key.replace(/\/64$/, ''));
  return w ? `${w[0].toString(16)}:${w[1].toString(16)}:x::/64` : 'x';
}

/** Why `entry` is not an IP address or CIDR block, or null when it is one. */
export function addressPatternError(entry: string): string | null {
  const [addr, bits, extra] = entry.trim().split('/');
  if (extra !== undefined) return `"${entry}" is not an IP address or CIDR block`;
  const v4 = isIPv4(addr);
  if (!v4 && !isIPv6(addr)) return `"${entry}" is not an IP address or CIDR block`;
  if (bits !== undefined) {
    const n = /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
    if (!(n >= 0 && n <= (v4 ? 32 : 128))) return `"${entry}": prefix length must be 0..${v4 ? 32 : 128}`;
  }
  return null;
}

/**
 * A set of addresses and CIDR blocks (IPv4 and IPv6). An IPv4 entry also matches the
 * IPv4-mapped form, since addresses are normalised before they are looked up.
 * Throws on an invalid entry: a typo in an exemption list must stop the node, not be ignored.
 */
export class AddressList {
  private readonly list = new BlockList();
  readonly entries: readonly string[];

  constructor(entries: readonly string[]) {
    const clean: string[] = [];
    for (const raw of entries) {
      const e = raw.trim();
      if (e === '') continue;
      const err = addressPatternError(e);
      if (err) throw new Error(err);
      const [addr, bits] = e.split('/');
      const type = isIPv4(addr) ? 'ipv4' : 'ipv6';
      const a = normalizeIp(addr)!;
      const t2 = isIPv4(a) ? 'ipv4' : 'ipv6';
      if (bits === undefined) this.list.addAddress(a, t2);
      else if (t2 === type) this.list.addSubnet(a, Number(bits), type);
      else this.list.addSubnet(a, Math.max(0, Number(bits) - 96), 'ipv4'); // ::ffff:a.b.c.d/120 etc.
      clean.push(e);
    }
    this.entries = clean;
  }

  get size(): number {
    return this.entries.length;
  }

  /** `ip` must be normalised (normalizeIp). */
  has(ip: string): boolean {
    if (this.entries.length === 0) return false;
    return this.list.check(ip, isIPv4(ip) ? 'ipv4' : 'ipv6');
  }
}

/**
 * The client address of a request. The socket address, unless that is a trusted proxy
 * carrying X-Forwarded-For: then the header is walked from the right (the hop the proxy
 * appended), skipping further trusted proxies, and the first untrusted hop is the client.
 * A malformed hop reached while the walk is still on a trusted proxy leaves the client
 * unknown: undefined (the request is refused; it must not be counted against the proxy).
 */
export function resolveClientIp(
  socketIp: string,
  forwardedFor: string | undefined,
  trusted: AddressList,
): string | undefined {
  const socket = normalizeIp(socketIp) ?? socketIp;
  if (!forwardedFor || trusted.size === 0 || !trusted.has(socket)) return socket;
  const hops = forwardedFor.split(',');
  let current = socket;
  for (let i = hops.length - 1; i >= 0 && trusted.has(current); i--) {
    const hop = normalizeIp(hops[i]);
    if (!hop) return undefined;
    current = hop;
  }
  return current;
}
