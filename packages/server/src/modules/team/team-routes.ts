import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdParams, Nullable, success } from '../../http/common-schemas.js';
import { AuthResultSchema } from '../accounts/account-schemas.js';
import { authResultOf } from '../accounts/account-routes.js';
import { clientOf, enforceRate, publicRate, requireSession, setRefreshCookie, type DashboardAuthDeps } from '../accounts/session-auth.js';
import { requireOwner } from './owner-guard.js';
import type { TeamService } from './team-service.js';
import type { AccountService } from '../accounts/account-service.js';
import type { ShopService } from '../shops/shop-service.js';
import { addressKey } from '../../lib/rate-limiter.js';

const tags = ['dashboard-team'];
const E = [401, 429];
const Role = Type.Union([Type.Literal('owner'), Type.Literal('staff')]);
const MemberSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Role,
  createdAt: Type.String(),
  lastLoginAt: Nullable(Type.String()),
});
const InviteSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Type.Literal('staff'),
  createdAt: Type.String(),
  expiresAt: Type.String(),
});
const TeamSchema = Type.Object({
  seats: Type.Object({ used: Type.Integer({ description: 'active members plus pending invites' }), limit: Type.Integer() }),
  members: Type.Array(MemberSchema),
  invites: Type.Array(InviteSchema),
});
const InviteBody = Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }) }, { additionalProperties: false });
const AcceptBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200 }), password: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

export interface TeamRouteDeps {
  auth: DashboardAuthDeps;
  team: TeamService;
  accounts: Pick<AccountService, 'getUser'>;
  shops: Pick<ShopService, 'get'>;
  /** RATE_LIMIT_LOGIN: accepting an invite sets a password, so it shares the sign-in budget per address. */
  loginPerMinute: number;
}

/** Staff seats: the owner invites by e-mail; the invitee sets a password on the accept page and is signed in. */
export const teamRoutes: FastifyPluginAsyncTypebox<TeamRouteDeps> = async (app, { auth, team, accounts, shops, loginPerMinute }) => {
  const session = requireSession(auth);
  const owner = requireOwner(auth);

  app.get(
    '/api/dashboard/team',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Members, pending invites and seat usage (owner and staff)',
        response: { 200: success(TeamSchema), ...errorResponses(...E) },
      },
    },
    async (req) => ({ success: true as const, data: await team.list(req.dashboard!.shopId) }),
  );

  app.post(
    '/api/dashboard/team/invites',
    {
      onRequest: [session, owner],
      schema: {
        tags,
        summary: 'Invite a staff member by e-mail (owner only; 403 PLAN_LIMIT_SEATS when members + pending invites fill the plan)',
        body: InviteBody,
        response: { 201: success(Type.Object({ invite: InviteSchema })), ...errorResponses(400, 403, 409, ...E) },
      },
    },
    async (req, reply) => {
      const { shopId, userId } = req.dashboard!;
      const invite = await team.invite(shopId, userId, req.body.email, clientOf(req));
      return reply.status(201).send({ success: true as const, data: { invite } });
    },
  );

  app.delete(
    '/api/dashboard/team/invites/:id',
    {
      onRequest: [session, owner],
      schema: {
        tags,
        summary: 'Revoke a pending invite (owner only)',
        params: IdParams,
        response: { 200: success(Type.Object({ revoked: Type.Boolean() })), ...errorResponses(403, 404, ...E) },
      },
    },
    async (req) => {
      await team.revokeInvite(req.dashboard!.shopId, req.dashboard!.userId, req.params.id, req.ip);
      return { success: true as const, data: { revoked: true } };
    },
  );

  app.delete(
    '/api/dashboard/team/members/:id',
    {
      onRequest: [session, owner],
      schema: {
        tags,
        summary: 'Remove a staff member; their sessions end at once (owner only; the owner cannot be removed)',
        params: IdParams,
        response: { 200: success(Type.Object({ removed: Type.Boolean() })), ...errorResponses(403, 404, ...E) },
      },
    },
    async (req) => {
      await team.removeMember(req.dashboard!.shopId, req.dashboard!.userId, req.params.id, req.ip);
      return { success: true as const, data: { removed: true } };
    },
  );

  app.post(
    '/api/dashboard/auth/accept-invite',
    {
      onRequest: publicRate(auth),
      schema: {
        tags,
        summary: 'Accept an invite: set a password, join the shop as staff, signed in (sets the refresh cookie)',
        body: AcceptBody,
        response: { 201: success(AuthResultSchema), ...errorResponses(400, 403, 409, 429) },
      },
    },
    async (req, reply) => {
      await enforceRate(auth.rateLimiter, reply, `accept:ip:${addressKey(req.ip)}`, loginPerMinute);
      const joined = await team.accept(req.body.token, req.body.password, clientOf(req));
      setRefreshCookie(reply, joined.refreshToken, auth.cookieSecure);
      const data = await authResultOf({ accounts, shops, tokens: auth.tokens }, joined.userId, joined.shopId, joined.session.id);
      return reply.status(201).send({ success: true as const, data });
    },
  );
};
