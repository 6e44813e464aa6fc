import dns from 'node:dns';
import net from 'node:net';
import { AppError } from '../../errors.js';

/**
 * Outgoing webhooks must not become a way into our own network (SSRF). A target URL is checked
 * when it is saved and again at every connection: the sender's socket uses `guardedLookup`, which
 * resolves the name and refuses private addresses *for the connection it is about to open*, so a
 * name that re-resolves to 10.0.0.1 between the check and the send (DNS rebinding) is still refused.
 */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

const blocked = new net.BlockList();
for (const [addr, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10] /* CGNAT */,
  ['127.0.0.0', 8],
  ['169.254.0.0', 16] /* link-local, cloud metadata */,
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(addr, prefix, 'ipv4');
for (const [addr, prefix] of [
  ['::', 96] /* unspecified, loopback and deprecated IPv4-compatible ::a.b.c.d (written in hex by URL/DNS) */,
  ['::ffff:0:0:0', 96] /* SIIT IPv4-translated */,
  ['64:ff9b:1::', 48] /* local-use NAT64 */,
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7] /* ULA, incl. fd00:ec2::254 metadata */,
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001::', 32] /* Teredo */,
  ['2002::', 16] /* 6to4 */,
] as const)
  blocked.addSubnet(addr, prefix, 'ipv6');

/** IPv4 hidden inside IPv6 forms (mapped, compatible, NAT64) is checked as IPv4. */
function embeddedIpv4(ip: string): string | null {
  const m = /^(?:::ffff:|::|64:ff9b::)(?:0:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (m) return m[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (hex) {
    const a = parseInt(hex[1]!, 16),
      b = parseInt(hex[2]!, 16);
    return `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
  }
  return null;
}

export function isBlockedAddress(ip: string): boolean {
  // A scoped address (fe80::1%eth0) is link-local by definition, and BlockList does not match zone ids.
  if (ip.includes('%')) return true;
  const family = net.isIP(ip);
  if (family === 4) return blocked.check(ip, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(ip.toLowerCase());
    if (v4) return blocked.check(v4, 'ipv4');
    return blocked.check(ip, 'ipv6');
  }
  return true; // not an address at all: refuse
}

/**
 * Why a URL was refused, as a code next to the English `message`: the dashboard says it in the owner's
 * language (`error.INVALID_WEBHOOK_URL.<reason>`), rather than showing the server's English sentence.
 */
export type WebhookUrlReason =
  'REQUIRED' | 'TOO_LONG' | 'NOT_A_URL' | 'NOT_HTTPS' | 'HAS_CREDENTIALS' | 'HAS_FRAGMENT' | 'NO_HOST' | 'DOES_NOT_RESOLVE' | 'NOT_PUBLIC';
const invalid = (message: string, reason: WebhookUrlReason) => new AppError('INVALID_WEBHOOK_URL', 400, message, { reason });

/** Syntax rules (no network): https (http only with allowPrivate), no credentials, no fragment, bounded length. */
export function parseWebhookUrl(raw: unknown, opts: { allowPrivate: boolean }): URL {
  if (typeof raw !== 'string' || !raw.trim()) throw invalid('url is required', 'REQUIRED');
  const s = raw.trim();
  if (s.length > MAX_WEBHOOK_URL_LENGTH) throw invalid(`url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`, 'TOO_LONG');
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw invalid('url is not a valid URL', 'NOT_A_URL');
  }
  if (u.protocol !== 'https:' && !(opts.allowPrivate && u.protocol === 'http:')) throw invalid('url must use https', 'NOT_HTTPS');
  if (u.username || u.password) throw invalid('url must not contain credentials', 'HAS_CREDENTIALS');
  if (u.hash) throw invalid('url must not contain a fragment', 'HAS_FRAGMENT');
  if (!u.hostname) throw invalid('url has no host', 'NO_HOST');
  return u;
}

function hostOf(u: URL): string {
  return u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
}

/** Creation-time check: the name must resolve, and only to public addresses (unless allowPrivate). */
export async function assertPublicTarget(u: URL, opts: { allowPrivate: boolean; lookup?: typeof dns.promises.lookup }): Promise<void> {
  if (opts.allowPrivate) return;
  const host = hostOf(u);
  let addrs: string[];
  if (net.isIP(host)) addrs = [host];
  else {
    try {
      addrs = (await (opts.lookup ?? dns.promises.lookup)(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw invalid(`url host ${host} does not resolve`, 'DOES_NOT_RESOLVE');
    }
  }
  if (!addrs.length || addrs.some(isBlockedAddress)) throw invalid('url must point to a public internet address', 'NOT_PUBLIC');
}

/** Send-time check for literal IP hosts (the socket does not call lookup for those). */
export function assertLiteralHostAllowed(u: URL, allowPrivate: boolean): void {
  const host = hostOf(u);
  if (!allowPrivate && net.isIP(host) && isBlockedAddress(host)) throw new Error(`refused: ${host} is not a public address`);
}

type LookupCb = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect (undici `connect.lookup`): resolves, drops nothing silently, and
 * fails the connection when any resolved address is private. The socket then connects to exactly
 * the addresses returned here, so the checked address is the connected one.
 */
export function guardedLookup(hostname: string, options: dns.LookupOptions | number | LookupCb, cb?: LookupCb): void {
  const callback = (typeof options === 'function' ? options : cb) as LookupCb;
  const o: dns.LookupOptions = typeof options === 'object' && options ? options : typeof options === 'number' ? { family: options } : {};
  dns.lookup(hostname, { ...o, all: true, verbatim: true }, (err, addresses) => {
    if (err) return callback(err, o.all ? [] : '', 0);
    const list = addresses as dns.LookupAddress[];
    const bad = list.find((a) => isBlockedAddress(a.address));
    if (bad || !list.length) {
      const e = Object.assign(new Error(`refused: ${hostname} resolves to a non-public address`), {
        code: 'EADDRBLOCKED',
      }) as NodeJS.ErrnoException;
      return callback(e, o.all ? [] : '', 0);
    }
    if (o.all) return callback(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
}
