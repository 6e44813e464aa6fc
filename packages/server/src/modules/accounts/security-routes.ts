import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdParams, success } from '../../http/common-schemas.js';
import { requireSession, type DashboardAuthDeps } from './session-auth.js';
import type { SessionService } from './session-service.js';
import type { AuditService } from '../audit/audit-service.js';
import { AuditEntrySchema } from '../audit/audit-schemas.js';
import { SessionSchema } from './account-schemas.js';

const tags = ['dashboard'];
const E = [401, 429];

export interface SecurityRouteDeps {
  auth: DashboardAuthDeps;
  sessions: Pick<SessionService, 'list' | 'revoke' | 'revokeAll'>;
  audit: Pick<AuditService, 'list'>;
}

/** The signed-in person's sessions and the shop's security log. */
export const securityRoutes: FastifyPluginAsyncTypebox<SecurityRouteDeps> = async (app, { auth, sessions, audit }) => {
  const session = requireSession(auth);

  app.get(
    '/api/dashboard/sessions',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Active sessions of the signed-in owner',
        response: { 200: success(Type.Object({ items: Type.Array(SessionSchema) })), ...errorResponses(...E) },
      },
    },
    async (req) => {
      const p = req.dashboard!;
      const items = (await sessions.list(p.userId)).map((s) => ({ ...s, current: s.id === p.sessionId }));
      return { success: true as const, data: { items } };
    },
  );

  app.delete(
    '/api/dashboard/sessions/:id',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Sign out one session',
        params: IdParams,
        response: { 200: success(Type.Object({ revoked: Type.Boolean() })), ...errorResponses(404, ...E) },
      },
    },
    async (req) => {
      const p = req.dashboard!;
      await sessions.revoke(p.userId, req.params.id, { actor: `user:${p.userId}`, shopId: p.shopId, ip: req.ip, reason: 'owner_revoke' });
      return { success: true as const, data: { revoked: true } };
    },
  );

  app.post(
    '/api/dashboard/sessions/revoke-all',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Sign out every other session (or all with includeCurrent)',
        querystring: Type.Object({ includeCurrent: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
        response: { 200: success(Type.Object({ revoked: Type.Integer() })), ...errorResponses(400, ...E) },
      },
    },
    async (req) => {
      const p = req.dashboard!;
      const n = await sessions.revokeAll(p.userId, {
        actor: `user:${p.userId}`,
        shopId: p.shopId,
        ip: req.ip,
        reason: 'owner_revoke_all',
        exceptSessionId: req.query.includeCurrent ? undefined : p.sessionId,
      });
      return { success: true as const, data: { revoked: n } };
    },
  );

  app.get(
    '/api/dashboard/audit',
    {
      onRequest: session,
      schema: {
        tags,
        summary: "The shop's security log, newest first",
        querystring: Type.Object(
          { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 100 })) },
          { additionalProperties: false },
        ),
        response: { 200: success(Type.Object({ items: Type.Array(AuditEntrySchema) })), ...errorResponses(400, ...E) },
      },
    },
    async (req) => ({ success: true as const, data: { items: await audit.list(req.dashboard!.shopId, req.query.limit ?? 100) } }),
  );
};
