import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, success } from '../../http/common-schemas.js';
import { enforceRate, requireSession, type DashboardAuthDeps } from '../accounts/session-auth.js';
import { requireOwner } from '../team/owner-guard.js';
import { PrivacyExportSchema } from './privacy-schemas.js';
import type { PrivacyService } from './privacy-service.js';

const tags = ['dashboard'];

export interface PrivacyRouteDeps {
  auth: DashboardAuthDeps;
  privacy: PrivacyService;
  /** RATE_LIMIT_LOGIN: erasure checks the password, so it shares the password-check budget. */
  passwordChecksPerMinute: number;
}

/** Personal-data rights: export and erasure (privacy-service.ts says what each holds and does). */
export const privacyRoutes: FastifyPluginAsyncTypebox<PrivacyRouteDeps> = async (app, { auth, privacy, passwordChecksPerMinute }) => {
  // Erasure is the owner's (PDPA data controller for the shop). Export is everyone's right of access:
  // the owner gets the shop's data, a staff member their own (privacy-service.ts, exportShop).
  const session = [requireSession(auth), requireOwner(auth)];

  app.get(
    '/api/dashboard/privacy/export',
    {
      onRequest: requireSession(auth),
      schema: {
        tags,
        summary: "Download your data as JSON (no secrets): the shop's for the owner, a staff member's own",
        response: { 200: success(PrivacyExportSchema), ...errorResponses(401, 429) },
      },
    },
    async (req, reply) => {
      const { shopId, userId } = req.dashboard!;
      const data = await privacy.exportShop(shopId, userId, req.ip);
      const file = data.scope === 'shop' ? shopId : userId;
      reply.header('Content-Disposition', `attachment; filename="slipcheck-export-${file}.json"`);
      return { success: true as const, data };
    },
  );

  app.post(
    '/api/dashboard/privacy/erase',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Erase the account and shop (soft delete now, real deletion after 24 h)',
        body: Type.Object(
          { password: Type.String({ minLength: 1, maxLength: 200 }), confirm: Type.Literal('DELETE') },
          { additionalProperties: false },
        ),
        response: { 200: success(Type.Object({ erased: Type.Boolean(), purgeAfter: Type.String() })), ...errorResponses(400, 401, 429) },
      },
    },
    async (req, reply) => {
      const { shopId, userId } = req.dashboard!;
      // Shares the password-check budget with password change: a stolen access token must not buy 120 guesses a minute.
      await enforceRate(auth.rateLimiter, reply, `pwcheck:usr:${userId}`, passwordChecksPerMinute);
      const { purgeAfter } = await privacy.erase(shopId, userId, req.body.password, req.ip);
      return { success: true as const, data: { erased: true, purgeAfter: purgeAfter.toISOString() } };
    },
  );
};
