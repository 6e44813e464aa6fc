import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { AppError } from '../../errors.js';
import { addressKey, type RateLimiter } from '../../lib/rate-limiter.js';
import type { AccessTokens, TokenFields } from './access-tokens.js';
import { REFRESH_COOKIE, REFRESH_TTL_MS, type ClientInfo, type SessionService } from './session-service.js';

declare module 'fastify' {
  interface FastifyRequest {
    dashboard?: TokenFields;
  }
}

export interface DashboardAuthDeps {
  tokens: AccessTokens;
  sessions: SessionService;
  rateLimiter: RateLimiter;
  perMinute: number;
  publicUrl: string;
  cookieSecure: boolean;
  /** The person's role, read per request (see team/owner-guard.ts); null for a removed person. */
  roleOf: (userId: string) => Promise<'owner' | 'staff' | null>;
}

export const clientOf = (req: FastifyRequest): ClientInfo => ({
  ip: req.ip ?? null,
  userAgent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'].slice(0, 300) : null,
});

const unauthorized = (msg = 'Sign in again: the access token is missing, expired or its session has ended') =>
  new AppError('UNAUTHORIZED', 401, msg);

/** 429 with Retry-After as a header and in the envelope. */
export async function enforceRate(rl: RateLimiter, reply: FastifyReply, key: string, max: number) {
  const decision = await rl.hit(key, max);
  if (!decision.allowed) {
    const retryAfter = decision.retryAfterSec;
    reply.header('Retry-After', String(retryAfter));
    throw new AppError('RATE_LIMITED', 429, `Too many requests; retry after ${retryAfter} s`, { retryAfter });
  }
}

function bearerOf(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  const m = typeof h === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
  return m ? m[1] : null;
}

/** Resolves a bearer token to its live session, or null. Revoked sessions stop at once (one indexed read). */
export async function principalOf(deps: DashboardAuthDeps, req: FastifyRequest): Promise<TokenFields | null> {
  const token = bearerOf(req);
  if (!token) return null;
  const holder = await deps.tokens.verifyAccess(token);
  if (!holder || !(await deps.sessions.isActive(holder.sessionId, holder.userId))) return null;
  return holder;
}

/** Bearer routes: access token, live session, then the per-client limit (per session). */
export function requireSession(deps: DashboardAuthDeps): onRequestAsyncHookHandler {
  return async (req, reply) => {
    const holder = await principalOf(deps, req);
    if (!holder) throw unauthorized();
    req.dashboard = holder;
    await enforceRate(deps.rateLimiter, reply, `dash:ses:${holder.sessionId}`, deps.perMinute);
  };
}

/** Routes without a session: the per-client limit per address. */
export function publicRate(deps: DashboardAuthDeps): onRequestAsyncHookHandler {
  return async (req, reply) => enforceRate(deps.rateLimiter, reply, `dash:ip:${addressKey(req.ip)}`, deps.perMinute);
}

/**
 * Cross-site request defence for cookie-authenticated routes: SameSite=Strict on the cookie plus an
 * Origin that is the service's own (PUBLIC_URL or the Host the request was sent to). A missing Origin
 * is refused: every browser sends it on POST, so only non-browser clients lack it.
 */
export function checkOrigin(publicUrl: string, req: FastifyRequest) {
  const origin = req.headers.origin;
  const allowed = new Set<string>();
  try {
    allowed.add(new URL(publicUrl).origin);
  } catch {
    /* unset PUBLIC_URL falls back to Host */
  }
  if (req.headers.host) allowed.add(`${req.protocol}://${req.headers.host}`.toLowerCase());
  if (typeof origin !== 'string' || !allowed.has(origin.toLowerCase())) {
    throw new AppError('ORIGIN_REJECTED', 403, 'This request must come from the dashboard itself (Origin header missing or foreign)');
  }
}

export function readRefreshCookie(req: FastifyRequest): string | null {
  const raw = req.headers.cookie;
  if (!raw) return null;
  // Only one cookie of ours, with a token alphabet that needs no decoding: a full cookie parser is not needed.
  for (const part of raw.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === REFRESH_COOKIE) return part.slice(i + 1).trim() || null;
  }
  return null;
}

const cookieLine = (value: string, maxAgeSec: number, secure: boolean) =>
  `${REFRESH_COOKIE}=${value}; Max-Age=${maxAgeSec}; Path=/api; HttpOnly${secure ? '; Secure' : ''}; SameSite=Strict`;

export function setRefreshCookie(reply: FastifyReply, token: string, secure: boolean) {
  reply.header('Set-Cookie', cookieLine(token, Math.floor(REFRESH_TTL_MS / 1000), secure));
}

export function clearRefreshCookie(reply: FastifyReply, secure: boolean) {
  reply.header('Set-Cookie', cookieLine('', 0, secure));
}
