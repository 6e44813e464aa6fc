import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.js';
import { errorResponses, success } from '../../http/common-schemas.js';
import type { PlanService } from '../plans/plan-service.js';
import type { ShopService } from '../shops/shop-service.js';
import type { AccessTokens } from './access-tokens.js';
import type { AccountService, User } from './account-service.js';
import {
  AuthResultSchema,
  LoginBody,
  PasswordChangeBody,
  PlanCardSchema,
  ResetConfirmBody,
  ResetRequestBody,
  ShopViewSchema,
  shopView,
  SignupBody,
  UserViewSchema,
} from './account-schemas.js';
import {
  checkOrigin,
  clearRefreshCookie,
  clientOf,
  enforceRate,
  principalOf,
  publicRate,
  readRefreshCookie,
  requireSession,
  setRefreshCookie,
  type DashboardAuthDeps,
} from './session-auth.js';
import type { SessionService } from './session-service.js';
import { addressKey } from '../../lib/rate-limiter.js';

export interface AccountRouteDeps {
  auth: DashboardAuthDeps;
  accounts: AccountService;
  sessions: SessionService;
  tokens: AccessTokens;
  shops: ShopService;
  plans: PlanService;
  audit: {
    record: (e: {
      shopId?: string | null;
      actor: string;
      action: string;
      target?: string | null;
      ip?: string | null;
      detail?: Record<string, unknown>;
    }) => Promise<void>;
  };
  loginPerMinute: number;
}

const tags = ['dashboard-auth'];
const userView = (u: User) => ({ id: u.id, email: u.email, language: u.language, role: u.role });

/** The answer of every sign-in (password, refresh, LINE): an access token plus who and where. */
export async function authResultOf(
  deps: { accounts: Pick<AccountService, 'getUser'>; shops: Pick<ShopService, 'get'>; tokens: Pick<AccessTokens, 'issueAccess'> },
  userId: string,
  shopId: string,
  sessionId: string,
) {
  const [user, shop, access] = await Promise.all([
    deps.accounts.getUser(userId),
    deps.shops.get(shopId),
    deps.tokens.issueAccess({ userId, shopId, sessionId }),
  ]);
  return { accessToken: access.token, accessTokenExpiresAt: access.expiresAt, user: userView(user), shop: shopView(shop) };
}

export const accountRoutes: FastifyPluginAsyncTypebox<AccountRouteDeps> = async (app, deps) => {
  const { auth } = deps;
  const authResult = (userId: string, shopId: string, sessionId: string) => authResultOf(deps, userId, shopId, sessionId);

  app.get(
    '/api/dashboard/plans',
    {
      onRequest: publicRate(auth),
      schema: {
        tags,
        summary: 'Plan cards for sign-up',
        response: { 200: success(Type.Object({ items: Type.Array(PlanCardSchema) })), ...errorResponses(429) },
      },
    },
    async () => ({
      success: true as const,
      data: {
        items: (await deps.plans.list()).map((p) => ({
          code: p.code,
          name: p.name,
          monthlyLimit: p.monthlyLimit,
          trialDays: p.trialDays,
          apiAccess: p.apiAccess,
          webhooks: p.webhooks,
          seats: p.seats,
          groups: p.groups,
          messagingAccounts: p.messagingAccounts,
          allowOverage: p.allowOverage,
          priceThb: p.priceThb,
        })),
      },
    }),
  );

  app.post(
    '/api/dashboard/auth/signup',
    {
      onRequest: publicRate(auth),
      schema: {
        tags,
        summary: 'Create an owner account and its shop (starts on TRIAL)',
        body: SignupBody,
        response: { 201: success(AuthResultSchema), ...errorResponses(400, 409, 429) },
      },
    },
    async (req, reply) => {
      await enforceRate(auth.rateLimiter, reply, `signup:ip:${addressKey(req.ip)}`, deps.loginPerMinute);
      const r = await deps.accounts.signup(req.body, clientOf(req));
      setRefreshCookie(reply, r.refreshToken, auth.cookieSecure);
      return reply.status(201).send({ success: true as const, data: await authResult(r.user.id, r.shop.id, r.session.id) });
    },
  );

  app.post(
    '/api/dashboard/auth/login',
    {
      onRequest: publicRate(auth),
      schema: {
        tags,
        summary: 'Sign in; sets the refresh cookie',
        body: LoginBody,
        response: { 200: success(AuthResultSchema), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (req, reply) => {
      // Both budgets are charged on every attempt: per address stops spraying many accounts, per account stops a botnet on one.
      const acct = await auth.rateLimiter.hit(`login:acct:${req.body.email.trim().toLowerCase()}`, deps.loginPerMinute);
      const ip = await auth.rateLimiter.hit(`login:ip:${addressKey(req.ip)}`, deps.loginPerMinute);
      if (!acct.allowed || !ip.allowed) {
        const retryAfter = Math.max(acct.allowed ? 0 : acct.retryAfterSec, ip.allowed ? 0 : ip.retryAfterSec);
        reply.header('Retry-After', String(retryAfter));
        throw new AppError('RATE_LIMITED', 429, `Too many sign-in attempts; retry after ${retryAfter} s`, { retryAfter });
      }
      const r = await deps.accounts.login(req.body, clientOf(req));
      setRefreshCookie(reply, r.refreshToken, auth.cookieSecure);
      return { success: true as const, data: await authResult(r.user.id, r.shop.id, r.session.id) };
    },
  );

  app.post(
    '/api/dashboard/auth/refresh',
    {
      onRequest: publicRate(auth),
      schema: {
        tags,
        summary: 'Rotate the refresh cookie and get a new access token (Origin checked)',
        response: { 200: success(AuthResultSchema), ...errorResponses(401, 403, 429) },
      },
    },
    async (req, reply) => {
      checkOrigin(auth.publicUrl, req);
      const presented = readRefreshCookie(req);
      if (!presented) throw new AppError('REFRESH_INVALID', 401, 'The session has ended; sign in again');
      try {
        const r = await deps.sessions.rotate(presented, clientOf(req));
        setRefreshCookie(reply, r.refreshToken, auth.cookieSecure);
        return { success: true as const, data: await authResult(r.userId, r.shopId, r.session.id) };
      } catch (e) {
        clearRefreshCookie(reply, auth.cookieSecure);
        throw e;
      }
    },
  );

  app.post(
    '/api/dashboard/auth/logout',
    {
      onRequest: publicRate(auth),
      schema: {
        tags,
        summary: 'End this session (cookie with Origin check, or bearer)',
        response: { 200: success(Type.Object({ loggedOut: Type.Boolean() })), ...errorResponses(403, 429) },
      },
    },
    async (req, reply) => {
      const cookie = readRefreshCookie(req);
      if (cookie) checkOrigin(auth.publicUrl, req);
      const fromCookie = cookie ? await deps.sessions.findByRefreshToken(cookie) : null;
      const fromBearer = await principalOf(auth, req);
      const target = fromCookie ? { sessionId: fromCookie.id, userId: fromCookie.user_id, shopId: fromCookie.shop_id } : fromBearer;
      if (target && (await deps.sessions.markRevoked(target.sessionId, 'logout'))) {
        await deps.audit.record({
          shopId: target.shopId,
          actor: `user:${target.userId}`,
          action: 'auth.logout',
          target: target.sessionId,
          ip: req.ip,
        });
      }
      clearRefreshCookie(reply, auth.cookieSecure);
      return { success: true as const, data: { loggedOut: true } };
    },
  );

  app.post(
    '/api/dashboard/auth/password-reset/request',
    {
      onRequest: publicRate(auth),
      schema: {
        tags,
        summary: 'E-mail a single-use reset link (same answer for unknown addresses)',
        body: ResetRequestBody,
        response: { 202: success(Type.Object({ sent: Type.Boolean() })), ...errorResponses(400, 429) },
      },
    },
    async (req, reply) => {
      await enforceRate(auth.rateLimiter, reply, `reset:ip:${addressKey(req.ip)}`, deps.loginPerMinute);
      await enforceRate(auth.rateLimiter, reply, `reset:acct:${req.body.email.trim().toLowerCase()}`, deps.loginPerMinute);
      await deps.accounts.requestPasswordReset(req.body.email, clientOf(req));
      return reply.status(202).send({ success: true as const, data: { sent: true } });
    },
  );

  app.post(
    '/api/dashboard/auth/password-reset/confirm',
    {
      onRequest: publicRate(auth),
      schema: {
        tags,
        summary: 'Set a new password with a reset link token; signs out every session',
        body: ResetConfirmBody,
        response: { 200: success(Type.Object({ reset: Type.Boolean() })), ...errorResponses(400, 429) },
      },
    },
    async (req, reply) => {
      await enforceRate(auth.rateLimiter, reply, `reset:ip:${addressKey(req.ip)}`, deps.loginPerMinute);
      await deps.accounts.confirmPasswordReset(req.body.token, req.body.password, clientOf(req));
      return { success: true as const, data: { reset: true } };
    },
  );

  app.get(
    '/api/dashboard/me',
    {
      onRequest: requireSession(auth),
      schema: {
        tags,
        summary: 'The signed-in user (owner or staff) and shop',
        response: { 200: success(Type.Object({ user: UserViewSchema, shop: ShopViewSchema })), ...errorResponses(401, 429) },
      },
    },
    async (req) => {
      const p = req.dashboard!;
      const [user, shop] = await Promise.all([deps.accounts.getUser(p.userId), deps.shops.get(p.shopId)]);
      return { success: true as const, data: { user: userView(user), shop: shopView(shop) } };
    },
  );

  // The EN/ไทย switch is the person's, kept on the user (not the browser, not the shop): it follows them
  // to another device and does not change the language of the shop's LINE replies and mails.
  app.patch(
    '/api/dashboard/me/preferences',
    {
      onRequest: requireSession(auth),
      schema: {
        tags,
        summary: "The signed-in person's dashboard language",
        body: Type.Object({ language: Type.Union([Type.Literal('th'), Type.Literal('en')]) }, { additionalProperties: false }),
        response: { 200: success(Type.Object({ user: UserViewSchema })), ...errorResponses(400, 401, 429) },
      },
    },
    async (req) => {
      const user = await deps.accounts.setLanguage(req.dashboard!.userId, req.body.language);
      return { success: true as const, data: { user: userView(user) } };
    },
  );

  app.post(
    '/api/dashboard/auth/password',
    {
      onRequest: requireSession(auth),
      schema: {
        tags,
        summary: 'Change the password; other sessions are signed out',
        body: PasswordChangeBody,
        response: { 200: success(Type.Object({ changed: Type.Boolean() })), ...errorResponses(400, 401, 429) },
      },
    },
    async (req, reply) => {
      const p = req.dashboard!;
      // The current password is checked here: a stolen access token must not buy 120 guesses a minute.
      await enforceRate(auth.rateLimiter, reply, `pwcheck:usr:${p.userId}`, deps.loginPerMinute);
      await deps.accounts.changePassword(p.userId, p.sessionId, req.body.currentPassword, req.body.newPassword, clientOf(req));
      return { success: true as const, data: { changed: true } };
    },
  );
};
