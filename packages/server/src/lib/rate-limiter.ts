import ipaddr from 'ipaddr.js';
import type { Redis } from 'ioredis';
import { metrics } from './metrics.js';

/**
 * Who an address-keyed limit counts: an IPv4 address as it is; an IPv6 address by its /64. A home
 * line or a cloud host is given a whole /64 (often more) and may pick any of its 2^64 addresses per
 * request, so a limit per single IPv6 address limits nothing. IPv4-mapped IPv6 (`::ffff:a.b.c.d`, how
 * a dual-stack socket shows an IPv4 client) is the IPv4 address. Text that is no address (a proxy's
 * header passed through) is its own key, capped. Use it for every `...:ip:` key.
 */
export function addressKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  try {
    const addr = ipaddr.process(ip); // also turns ::ffff:a.b.c.d into a.b.c.d; a zone (%eth0) is dropped below
    if (addr.kind() === 'ipv4') return addr.toString();
    const [a, b, c, d] = (addr as ipaddr.IPv6).parts;
    return `${new ipaddr.IPv6([a, b, c, d, 0, 0, 0, 0]).toString()}/64`;
  } catch {
    return ip.slice(0, 64).toLowerCase();
  }
}

export interface RateDecision {
  allowed: boolean;
  retryAfterSec: number;
  remaining: number;
}

/**
 * Fixed one-minute windows keyed by name. In process by default; Redis (`REDIS_URL`) makes every node
 * share one count. A Redis outage fails open: a limiter must not take the product down with it.
 */
export interface RateLimiter {
  hit(key: string, limit: number, windowMs?: number): Promise<RateDecision>;
}

/** The limit a key belongs to (its prefix), the `limit` label of slipcheck_rate_limit_refusals_total. */
export function limitFamily(key: string): 'key' | 'verify' | 'dashboard' | 'login' {
  const prefix = key.slice(0, key.indexOf(':'));
  if (prefix === 'key' || prefix === 'verify') return prefix;
  return prefix === 'dash' ? 'dashboard' : 'login'; // login, reset, signup, accept, pwcheck, line-login
}

/**
 * Refusals are counted here, where the key says which limit refused: a route cannot tell (a 429 on
 * verify may be the per-key or the per-shop limit, one on sign-in the dashboard or the login budget).
 */
function counted(key: string, d: RateDecision): RateDecision {
  if (!d.allowed) metrics.rateLimitRefusals.inc({ limit: limitFamily(key) });
  return d;
}

export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  let sweepAt = 0;
  return {
    async hit(key, limit, windowMs = 60_000) {
      const t = now();
      const start = t - (t % windowMs);
      if (t > sweepAt) {
        // drop old windows so the map stays small
        for (const [k, w] of windows) if (w.start < start - windowMs) windows.delete(k);
        sweepAt = t + windowMs;
      }
      let w = windows.get(key);
      if (!w || w.start !== start) {
        w = { start, count: 0 };
        windows.set(key, w);
      }
      w.count++;
      const retryAfterSec = Math.max(1, Math.ceil((start + windowMs - t) / 1000));
      return counted(key, { allowed: w.count <= limit, retryAfterSec, remaining: Math.max(0, limit - w.count) });
    },
  };
}

export function createRedisRateLimiter(redis: Redis, now: () => number = Date.now): RateLimiter {
  return {
    async hit(key, limit, windowMs = 60_000) {
      const t = now();
      const start = t - (t % windowMs);
      const k = `slipcheck:rl:${key}:${start}`;
      try {
        const res = await redis
          .multi()
          .incr(k)
          .pexpire(k, windowMs + 1000)
          .exec();
        const count = Number(res?.[0]?.[1] ?? 0);
        return counted(key, {
          allowed: count <= limit,
          retryAfterSec: Math.max(1, Math.ceil((start + windowMs - t) / 1000)),
          remaining: Math.max(0, limit - count),
        });
      } catch {
        return { allowed: true, retryAfterSec: 0, remaining: limit };
      }
    },
  };
}
