import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler, onSendHookHandler } from 'fastify';
import { AppError } from '../errors.js';
import type { RateLimiter } from '../lib/rate-limiter.js';
import type { ApiKeyService, AuthenticatedKey, Scope } from '../modules/api-keys/api-key-service.js';
import type { QuotaService } from '../modules/quota/quota-service.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiAuth?: AuthenticatedKey;
    /** Set by a handler that already knows the post-call quota (verify), so onSend need not read it again. */
    quotaHeaders?: { limit: number; used: number; remaining: number; resetDays: number };
  }
}

export interface ApiAuthDeps {
  apiKeys: ApiKeyService;
  quota: QuotaService;
  rateLimiter: RateLimiter;
  perKeyPerMinute: number;
  verifyPerMinute: number;
}

const unauthorized = () =>
  new AppError('UNAUTHORIZED', 401, 'Missing, invalid or revoked API key; send Authorization: Bearer sk_live_... or sk_test_...');

/** Over the limit: 429 RATE_LIMITED with Retry-After, the answer the public contract names. */
async function limit(deps: ApiAuthDeps, reply: FastifyReply, key: string, max: number) {
  const decision = await deps.rateLimiter.hit(key, max);
  if (!decision.allowed) {
    reply.header('Retry-After', String(decision.retryAfterSec));
    throw new AppError('RATE_LIMITED', 429, `Rate limit of ${max} requests per minute exceeded; retry after ${decision.retryAfterSec} s`);
  }
}

/**
 * Authentication, rate limits, plan gate and scopes for the public API, in that order, before the body
 * is read (a wrong key costs no upload). A wrong key
 * learns nothing else (every unknown, malformed or revoked key gets the same 401).
 */
export function apiAuth(deps: ApiAuthDeps, scopes: Scope[], opts: { verify?: boolean } = {}): onRequestAsyncHookHandler {
  return async function (req: FastifyRequest, reply: FastifyReply) {
    const header = req.headers.authorization;
    const m = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!m) throw unauthorized();
    const auth = await deps.apiKeys.authenticate(m[1]);
    if (!auth) throw unauthorized();
    req.apiAuth = auth;
    await limit(deps, reply, `key:${auth.key.id}`, deps.perKeyPerMinute);
    if (auth.shop.state === 'suspended') throw new AppError('SHOP_SUSPENDED', 403, 'This shop is suspended; contact support');
    if (!auth.plan.apiAccess)
      throw new AppError('PLAN_API_ACCESS_REQUIRED', 403, 'The current plan has no REST API access; upgrade to a paid plan');
    const missing = scopes.filter((s) => !auth.key.scopes.includes(s));
    if (missing.length) throw new AppError('MISSING_SCOPE', 403, `API key missing scope(s): ${missing.join(', ')}`);
    if (opts.verify) await limit(deps, reply, `verify:${auth.shop.id}`, deps.verifyPerMinute);
  };
}

/**
 * The four X-Service-Quota-* headers on every authenticated answer, errors after authentication
 * included (onSend). A handler that knows the quota after its call (verify) leaves it in
 * `req.quotaHeaders` and the headers are set at once; otherwise the quota is read first.
 */
export function quotaHeadersHook(deps: { quota: QuotaService }): onSendHookHandler {
  const set = (reply: FastifyReply, h: NonNullable<FastifyRequest['quotaHeaders']>) => {
    reply.header('X-Service-Quota-Limit', String(h.limit));
    reply.header('X-Service-Quota-Used', String(h.used));
    reply.header('X-Service-Quota-Remaining', String(h.remaining));
    reply.header('X-Service-Quota-Reset-Days', String(h.resetDays));
  };
  // A callback hook: a replay (and every answer without authentication) waits for nothing here, and
  // an async hook costs every request a promise and a turn of the microtask queue (issue 24).
  return (req, reply, payload, done) => {
    const auth = req.apiAuth;
    if (!auth) return done(null, payload);
    if (req.quotaHeaders) {
      set(reply, req.quotaHeaders);
      return done(null, payload);
    }
    deps.quota.snapshot(auth.shop, auth.plan).then(
      (q) => {
        set(reply, { limit: q.limit, used: q.used, remaining: q.remaining, resetDays: q.daysUntilReset });
        done(null, payload);
      },
      (err: unknown) => {
        req.log.warn({ err }, 'quota headers unavailable');
        done(null, payload);
      },
    );
  };
}
