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

/** The key of `Authorization: Bearer <key>`, or undefined when the header is missing or has another form. */
function bearerKey(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  return (typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null)?.[1];
}

/** The hooks apiAuth made, so the 405 of a path can tell whether that path's routes take an API key. */
const apiAuthHooks = new WeakSet<object>();

/** True when a route's onRequest hooks (one or a list) include an apiAuth hook. */
export function takesApiKey(onRequest: unknown): boolean {
  return [onRequest].flat().some((h) => typeof h === 'function' && apiAuthHooks.has(h));
}

/**
 * Authentication, rate limits, plan gate and scopes for the public API, in that order, before the body
 * is read (a wrong key costs no upload). A wrong key
 * learns nothing else (every unknown, malformed or revoked key gets the same 401).
 */
export function apiAuth(deps: ApiAuthDeps, scopes: Scope[], opts: { verify?: boolean } = {}): onRequestAsyncHookHandler {
  const hook = async function (req: FastifyRequest, reply: FastifyReply) {
    const key = bearerKey(req);
    if (!key) throw unauthorized();
    const auth = await deps.apiKeys.authenticate(key);
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
  apiAuthHooks.add(hook);
  return hook;
}

/**
 * For a 405 on a path whose routes take an API key: a valid key names its shop, so the answer carries
 * that shop's quota headers like every other authenticated answer (the spec: every response carries
 * them). Only the key is read: the 405 itself does not depend on the key, so nothing here refuses (no
 * 401, 403 or 429; a 405 is not counted against the key's rate limit, as no endpoint was called), and
 * a missing, unknown or revoked key, or a key that cannot be read now (database down), leaves the
 * answer without quota headers, like a 401.
 */
export function identifyApiKey(deps: Pick<ApiAuthDeps, 'apiKeys'>): (req: FastifyRequest) => Promise<void> {
  return async (req) => {
    const key = bearerKey(req);
    if (!key) return;
    try {
      const auth = await deps.apiKeys.authenticate(key);
      if (auth) req.apiAuth = auth;
    } catch (err) {
      req.log.warn({ err }, 'API key of a 405 not read; answered without quota headers');
    }
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
