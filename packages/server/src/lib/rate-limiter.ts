import { randomBytes } from 'node:crypto';
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
 * share one count. A Redis outage never turns a limit off: each node then enforces its own share of
 * every limit in memory (see createRedisRateLimiter).
 */
export interface RateLimiter {
  hit(key: string, limit: number, windowMs?: number): Promise<RateDecision>;
  close?(): void;
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

/** Counts hits per key in fixed windows, with no decision attached (the Redis limiter's local shadow). */
function createWindowCounter(now: () => number) {
  const windows = new Map<string, { start: number; count: number }>();
  let sweepAt = 0;
  return {
    add(key: string, windowMs: number): number {
      const t = now();
      const start = t - (t % windowMs);
      if (t > sweepAt) {
        for (const [k, w] of windows) if (w.start < start - windowMs) windows.delete(k);
        sweepAt = t + windowMs;
      }
      let w = windows.get(key);
      if (!w || w.start !== start) {
        w = { start, count: 0 };
        windows.set(key, w);
      }
      return ++w.count;
    },
  };
}

const NODES_KEY = 'slipcheck:rl:nodes';
const HEARTBEAT_MS = 5_000;
const NODE_TTL_MS = 30_000;

export interface RedisRateLimiterOptions {
  now?: () => number;
  /** Fewest nodes to assume during an outage (RATE_LIMIT_NODES); the nodes seen in Redis count too. */
  minNodes?: number;
  nodeId?: string;
}

/**
 * Shared fixed windows in Redis. Every hit is also counted in this node's memory, so when Redis
 * cannot be reached the node already knows what it served in the current window and goes on with its
 * share of the limit: `floor(limit / nodes)` (at least 1), where `nodes` is the larger of
 * RATE_LIMIT_NODES and the nodes that served traffic in the last 30 s (each node notes itself in
 * Redis every 5 s). The fleet as a whole then lets through at most the limit, never "no limit".
 */
export function createRedisRateLimiter(redis: Redis, opts: RedisRateLimiterOptions = {}): RateLimiter {
  const now = opts.now ?? Date.now;
  const nodeId = opts.nodeId ?? randomBytes(8).toString('hex');
  const minNodes = Math.max(1, opts.minNodes ?? 1);
  const local = createWindowCounter(now);
  let seenNodes = 1;
  let heartbeatAt = 0;
  let fallback = false;
  const setFallback = (on: boolean) => {
    if (on === fallback) return;
    fallback = on;
    metrics.rateLimitFallback.inc(on ? 1 : -1);
  };
  return {
    async hit(key, limit, windowMs = 60_000) {
      const t = now();
      const start = t - (t % windowMs);
      const retryAfterSec = Math.max(1, Math.ceil((start + windowMs - t) / 1000));
      const mine = local.add(key, windowMs);
      {
        // The container's client has no offline queue: while Redis is away this fails at once.
        const k = `slipcheck:rl:${key}:${start}`;
        const beat = t >= heartbeatAt;
        try {
          const m = redis
            .multi()
            .incr(k)
            .pexpire(k, windowMs + 1000);
          if (beat)
            m.zadd(NODES_KEY, t, nodeId)
              .zremrangebyscore(NODES_KEY, '-inf', t - NODE_TTL_MS)
              .zcard(NODES_KEY)
              .pexpire(NODES_KEY, NODE_TTL_MS);
          const res = await m.exec();
          if (!res || res.some(([err]) => err)) throw new Error('rate limit transaction failed');
          if (beat) {
            heartbeatAt = t + HEARTBEAT_MS;
            seenNodes = Math.max(1, Number(res[4]?.[1] ?? 1));
          }
          setFallback(false);
          const count = Number(res[0][1]);
          return counted(key, { allowed: count <= limit, retryAfterSec, remaining: Math.max(0, limit - count) });
        } catch {
          // fall through to this node's share
        }
      }
      setFallback(true);
      const share = Math.max(1, Math.floor(limit / Math.max(minNodes, seenNodes)));
      return counted(key, { allowed: mine <= share, retryAfterSec, remaining: Math.max(0, share - mine) });
    },
    close: () => setFallback(false),
  };
}
