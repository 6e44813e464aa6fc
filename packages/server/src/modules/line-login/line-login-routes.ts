import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { errorResponses, Nullable, success } from '../../http/common-schemas.js';
import { authResultOf, type AccountRouteDeps } from '../accounts/account-routes.js';
import { AuthResultSchema } from '../accounts/account-schemas.js';
import {
  checkOrigin,
  clientOf,
  readRefreshCookie,
  enforceRate,
  publicRate,
  requireSession,
  setRefreshCookie,
  type DashboardAuthDeps,
} from '../accounts/session-auth.js';
import type { LineLoginClient } from './line-login-client.js';
import type { LineLoginService } from './line-login-service.js';
import { addressKey } from '../../lib/rate-limiter.js';

export interface LineLoginRouteDeps extends Pick<AccountRouteDeps, 'accounts' | 'shops' | 'tokens'> {
  auth: DashboardAuthDeps;
  lineLogin: LineLoginService;
  client: LineLoginClient;
  liffId: string;
  liffMock: boolean;
  authorizeUrl: string;
  channelId: string;
  secret: string;
  loginPerMinute: number;
}

const OAUTH_COOKIE = 'slipcheck_line_oauth';
const OAUTH_PATH = '/api/dashboard/auth/line';
const OAUTH_TTL_MS = 10 * 60_000;
// The mini-app's sign-in nonce: issued by the service, carried back in the request body and in a
// signed HttpOnly cookie (no table), spent by the sign-in it was issued for.
const NONCE_COOKIE = 'slipcheck_line_nonce';
const NONCE_PATH = '/api/miniapp';
const NONCE_TTL_MS = 5 * 60_000;
const Nonce = Type.String({ minLength: 16, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
const IdToken = Type.String({ minLength: 10, maxLength: 4096, pattern: '^[A-Za-z0-9._-]+$' });
const ShopId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
const MembershipSchema = Type.Object({
  shopId: Type.String(),
  shopName: Type.String(),
  role: Type.Union([Type.Literal('owner'), Type.Literal('staff')]),
});
const MiniAppAuthSchema = Type.Object({ ...AuthResultSchema.properties, shops: Type.Array(MembershipSchema) });
const tags = ['line-login'];

/**
 * Sign-in with LINE: the mini-app (LIFF ID token) and the dashboard's "Log in with LINE" (OAuth 2.1
 * code flow with state and PKCE). Both end in the dashboard's own session: refresh cookie, rotation,
 * reuse detection, new-device mail.
 */
export const lineLoginRoutes: FastifyPluginAsyncTypebox<LineLoginRouteDeps> = async (app, deps) => {
  const { auth } = deps;
  const session = requireSession(auth);
  // The PKCE verifier and state ride in a signed cookie (no table): its key is derived for this use only.
  const stateKey = Buffer.from(hkdfSync('sha256', deps.secret, 'slipcheck', 'line-oauth-state-v1', 32));
  const sign = (payload: string) => createHmac('sha256', stateKey).update(payload).digest('base64url');
  const miniAppUrl = deps.liffId ? `https://liff.line.me/${deps.liffId}` : null;

  const answer = async (reply: FastifyReply, r: Awaited<ReturnType<LineLoginService['signIn']>>) => {
    setRefreshCookie(reply, r.refreshToken, auth.cookieSecure);
    const base = await authResultOf(deps, r.membership.userId, r.membership.shopId, r.session.id);
    return {
      success: true as const,
      data: { ...base, shops: r.memberships.map((m) => ({ shopId: m.shopId, shopName: m.shopName, role: m.role })) },
    };
  };
  const limitLine = (req: FastifyRequest, reply: FastifyReply) =>
    enforceRate(auth.rateLimiter, reply, `line-login:ip:${addressKey(req.ip)}`, deps.loginPerMinute * 4);
  const nonceCookie = (value: string, maxAgeSec: number) =>
    `${NONCE_COOKIE}=${value}; Max-Age=${Math.floor(maxAgeSec)}; Path=${NONCE_PATH}; HttpOnly${auth.cookieSecure ? '; Secure' : ''}; SameSite=Strict`;
  /**
   * Spends the nonce this browser was given and sends back, or answers 401 (the route clears the
   * cookie either way). Nothing to return: LIFF's ID token cannot carry this nonce, so this round
   * trip is the whole check (line-login-client.ts, `verifyIdToken`).
   */
  const spendPresentedNonce = async (req: FastifyRequest, sent: string): Promise<void> => {
    const saved = readSignedCookie(req, NONCE_COOKIE, sign) as { nonce?: unknown; exp?: unknown } | null;
    const { nonce, exp } = saved ?? {};
    const valid = typeof nonce === 'string' && typeof exp === 'number' && exp >= Date.now() && safeEqual(nonce, sent);
    // Spent once presented, whatever the outcome: a copied cookie and body cannot be replayed.
    if (!valid || !(await deps.lineLogin.spendNonce(nonce, new Date(exp))))
      throw new AppError(
        'LINE_TOKEN_INVALID',
        401,
        'LINE sign-in failed: the sign-in attempt does not match; open the mini-app from LINE again',
      );
  };

  app.post(
    '/api/miniapp/nonce',
    {
      onRequest: publicRate(auth),
      schema: {
        tags,
        summary: 'A one-time nonce for the next mini-app sign-in (also set in a short-lived HttpOnly cookie)',
        response: { 200: success(Type.Object({ nonce: Type.String() })), ...errorResponses(403, 429) },
      },
    },
    async (req, reply) => {
      checkOrigin(auth.publicUrl, req);
      const nonce = randomBytes(16).toString('base64url');
      const payload = Buffer.from(JSON.stringify({ nonce, exp: Date.now() + NONCE_TTL_MS })).toString('base64url');
      reply.header('Set-Cookie', nonceCookie(`${payload}.${sign(payload)}`, NONCE_TTL_MS / 1000));
      return { success: true as const, data: { nonce } };
    },
  );

  app.get(
    '/api/miniapp/config',
    {
      onRequest: publicRate(auth),
      schema: {
        tags,
        summary: 'What the mini-app and the sign-in page need to start LINE sign-in',
        response: {
          200: success(
            Type.Object({
              liffId: Nullable(Type.String()),
              mock: Type.Boolean(),
              loginWithLine: Type.Boolean(),
              miniAppUrl: Nullable(Type.String()),
            }),
          ),
        },
      },
    },
    async () => ({
      success: true as const,
      data: { liffId: deps.liffId || null, mock: deps.liffMock, loginWithLine: deps.client.enabled(), miniAppUrl },
    }),
  );

  app.post(
    '/api/miniapp/auth/line',
    {
      onRequest: publicRate(auth),
      schema: {
        tags,
        summary: 'Mini-app sign-in with the LIFF ID token; sets the refresh cookie',
        body: Type.Object({ idToken: IdToken, nonce: Nonce, shopId: Type.Optional(ShopId) }, { additionalProperties: false }),
        response: { 200: success(MiniAppAuthSchema), ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (req, reply) => {
      checkOrigin(auth.publicUrl, req);
      await limitLine(req, reply);
      try {
        await spendPresentedNonce(req, req.body.nonce);
        const identity = await deps.client.verifyIdToken(req.body.idToken);
        return await answer(reply, await deps.lineLogin.signIn(identity, req.body.shopId, clientOf(req), 'miniapp'));
      } finally {
        reply.header('Set-Cookie', nonceCookie('', 0)); // after the session cookie: one nonce, one attempt
      }
    },
  );

  app.post(
    '/api/miniapp/resume',
    {
      onRequest: publicRate(auth),
      schema: {
        tags,
        summary: "After a reload: continue this browser's mini-app session when it is the LINE user of the ID token",
        body: Type.Object({ idToken: IdToken }, { additionalProperties: false }),
        response: { 200: success(MiniAppAuthSchema), ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (req, reply) => {
      checkOrigin(auth.publicUrl, req);
      await limitLine(req, reply);
      // No nonce here: the HttpOnly refresh cookie is the one-time proof (rotated on use, reuse ends the
      // session); the ID token only says which LINE user the session must belong to.
      const presented = readRefreshCookie(req);
      if (!presented) throw new AppError('REFRESH_INVALID', 401, 'No mini-app session of this LINE user to continue; sign in with LINE');
      const r = await deps.lineLogin.resume(presented, () => deps.client.verifyIdToken(req.body.idToken), clientOf(req));
      return answer(reply, r);
    },
  );

  app.post(
    '/api/miniapp/link',
    {
      onRequest: publicRate(auth),
      schema: {
        tags,
        summary: 'Link this LINE user with a one-time code from the dashboard, then sign in',
        body: Type.Object(
          { idToken: IdToken, nonce: Nonce, code: Type.String({ minLength: 4, maxLength: 20, pattern: '^[A-Za-z0-9 -]+$' }) },
          { additionalProperties: false },
        ),
        response: { 200: success(MiniAppAuthSchema), ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (req, reply) => {
      checkOrigin(auth.publicUrl, req);
      await limitLine(req, reply);
      try {
        await spendPresentedNonce(req, req.body.nonce);
        const identity = await deps.client.verifyIdToken(req.body.idToken);
        const linked = await deps.lineLogin.linkWithCode(identity, req.body.code, clientOf(req));
        return await answer(reply, await deps.lineLogin.signIn(identity, linked.shopId, clientOf(req), 'miniapp'));
      } finally {
        reply.header('Set-Cookie', nonceCookie('', 0));
      }
    },
  );

  app.post(
    '/api/miniapp/switch',
    {
      onRequest: publicRate(auth),
      schema: {
        tags,
        summary: 'Move the current LINE session (refresh cookie) to another shop of the same LINE user',
        body: Type.Object({ shopId: ShopId }, { additionalProperties: false }),
        response: { 200: success(MiniAppAuthSchema), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (req, reply) => {
      checkOrigin(auth.publicUrl, req);
      const presented = readRefreshCookie(req);
      if (!presented) throw new AppError('REFRESH_INVALID', 401, 'The session has ended; sign in again');
      return answer(reply, await deps.lineLogin.switchShop(presented, req.body.shopId, clientOf(req)));
    },
  );

  app.get(
    '/api/dashboard/line-login',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Whether this person has linked a LINE account',
        response: {
          200: success(
            Type.Object({
              enabled: Type.Boolean(),
              linked: Type.Boolean(),
              linkedAt: Nullable(Type.String()),
              miniAppUrl: Nullable(Type.String()),
            }),
          ),
          ...errorResponses(401, 429),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: { enabled: deps.client.enabled(), ...(await deps.lineLogin.status(req.dashboard!.userId)), miniAppUrl },
    }),
  );

  app.post(
    '/api/dashboard/line-login/code',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'A one-time code (10 minutes) to link my LINE in the mini-app',
        response: {
          201: success(Type.Object({ code: Type.String(), expiresAt: Type.String(), miniAppUrl: Nullable(Type.String()) })),
          ...errorResponses(401, 404, 429),
        },
      },
    },
    async (req, reply) => {
      if (!deps.client.enabled()) throw new AppError('LINE_LOGIN_DISABLED', 404, 'Sign-in with LINE is not set up on this service');
      const created = await deps.lineLogin.createCode({ id: req.dashboard!.userId, shopId: req.dashboard!.shopId });
      return reply.status(201).send({ success: true as const, data: { ...created, miniAppUrl } });
    },
  );

  app.delete(
    '/api/dashboard/line-login',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Unlink my LINE; ends my mini-app sessions',
        response: { 204: Type.Null(), ...errorResponses(401, 404, 429) },
      },
    },
    async (req, reply) => {
      await deps.lineLogin.unlink({ id: req.dashboard!.userId, shopId: req.dashboard!.shopId }, clientOf(req));
      return reply.status(204).send(null);
    },
  );

  const callbackUrl = () => `${auth.publicUrl}${OAUTH_PATH}/callback`;
  const toLogin = (reply: FastifyReply, code: string) =>
    reply.header('Set-Cookie', oauthCookie('', 0, auth.cookieSecure)).redirect(`/login?line=${encodeURIComponent(code)}`, 302);

  app.get(
    `${OAUTH_PATH}/start`,
    { onRequest: publicRate(auth), schema: { tags, summary: 'Redirects to LINE Login (state + PKCE S256)' } },
    async (_req, reply) => {
      if (!deps.client.enabled()) return toLogin(reply, 'LINE_LOGIN_DISABLED');
      const state = randomBytes(24).toString('base64url');
      const verifier = randomBytes(48).toString('base64url');
      const nonce = randomBytes(16).toString('base64url');
      const payload = Buffer.from(JSON.stringify({ state, verifier, nonce, exp: Date.now() + OAUTH_TTL_MS })).toString('base64url');
      const authorize = new URL(deps.authorizeUrl);
      authorize.search = new URLSearchParams({
        response_type: 'code',
        client_id: deps.channelId,
        redirect_uri: callbackUrl(),
        state,
        scope: 'openid profile',
        nonce,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString();
      return reply
        .header('Set-Cookie', oauthCookie(`${payload}.${sign(payload)}`, OAUTH_TTL_MS / 1000, auth.cookieSecure))
        .redirect(authorize.toString(), 302);
    },
  );

  app.get(
    `${OAUTH_PATH}/callback`,
    {
      onRequest: publicRate(auth),
      schema: {
        tags,
        summary: 'LINE Login redirects back here',
        querystring: Type.Object({
          code: Type.Optional(Type.String({ maxLength: 512 })),
          state: Type.Optional(Type.String({ maxLength: 256 })),
          error: Type.Optional(Type.String({ maxLength: 128 })),
        }),
      },
    },
    async (req, reply) => {
      const q = req.query;
      const saved = readOauthCookie(req, sign);
      if (q.error || !q.code || !q.state) return toLogin(reply, 'LINE_CANCELLED');
      if (!saved || saved.exp < Date.now() || !safeEqual(saved.state, q.state)) return toLogin(reply, 'LINE_STATE_MISMATCH');
      try {
        const idToken = await deps.client.exchangeCode({ code: q.code, redirectUri: callbackUrl(), codeVerifier: saved.verifier });
        const identity = await deps.client.verifyIdToken(idToken, saved.nonce);
        const r = await deps.lineLogin.signIn(identity, undefined, clientOf(req), 'dashboard');
        setRefreshCookie(reply, r.refreshToken, auth.cookieSecure);
        // Two Set-Cookie lines: the session cookie above and the spent OAuth cookie cleared.
        reply.header('Set-Cookie', [reply.getHeader('Set-Cookie') as string, oauthCookie('', 0, auth.cookieSecure)]);
        return reply.redirect('/', 302);
      } catch (err) {
        return toLogin(reply, err instanceof AppError ? err.code : 'LINE_UNAVAILABLE');
      }
    },
  );
};

// SameSite=Lax, not Strict: the callback is a top-level navigation coming back from LINE's site.
const oauthCookie = (value: string, maxAgeSec: number, secure: boolean) =>
  `${OAUTH_COOKIE}=${value}; Max-Age=${Math.floor(maxAgeSec)}; Path=${OAUTH_PATH}; HttpOnly${secure ? '; Secure' : ''}; SameSite=Lax`;

function safeEqual(a: string, b: string) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function readOauthCookie(
  req: FastifyRequest,
  sign: (p: string) => string,
): { state: string; verifier: string; nonce: string; exp: number } | null {
  const raw = req.headers.cookie ?? '';
  const part = raw
    .split(';')
    .map((p) => p.trim())
    .find((p) => p.startsWith(`${OAUTH_COOKIE}=`));
  const value = part?.slice(OAUTH_COOKIE.length + 1) ?? '';
  const [payload, mac] = value.split('.');
  if (!payload || !mac || !safeEqual(sign(payload), mac)) return null;
  try {
    const v = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return typeof v.state === 'string' && typeof v.verifier === 'string' && typeof v.nonce === 'string' && typeof v.exp === 'number'
      ? v
      : null;
  } catch {
    return null;
  }
}

/** A `payload.mac` cookie signed with `sign`, parsed; null when missing, forged or unreadable. */
function readSignedCookie(req: FastifyRequest, name: string, sign: (p: string) => string): Record<string, unknown> | null {
  const part = (req.headers.cookie ?? '')
    .split(';')
    .map((p) => p.trim())
    .find((p) => p.startsWith(`${name}=`));
  const [payload, mac] = (part?.slice(name.length + 1) ?? '').split('.');
  if (!payload || !mac || !safeEqual(sign(payload), mac)) return null;
  try {
    const v: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
