import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { API_ERRORS, bearerSecurity, errorResponses, NoQuery, Nullable, quotaFields, success } from '../../http/common-schemas.js';
import { apiAuth, type ApiAuthDeps } from '../../http/api-auth.js';
import type { PayeeService } from '../payees/payee-service.js';
import type { QuotaService } from './quota-service.js';

const QuotaResource = Type.Object(quotaFields, { $id: 'Quota' });
const MeResource = Type.Object(
  {
    shop: Type.Object({ id: Type.String(), name: Type.String() }),
    apiKey: Type.Object({
      name: Type.String(),
      prefix: Type.String(),
      environment: Type.Union([Type.Literal('live'), Type.Literal('test')]),
      scopes: Type.Array(Type.String()),
      lastUsedAt: Nullable(Type.String()),
      createdAt: Type.String(),
    }),
    plan: Type.Object({ code: Type.String(), name: Type.String() }),
    quota: Type.Object({ ...quotaFields, overage: Type.Integer() }),
    testQuota: Type.Object({ used: Nullable(Type.Integer()), limit: Type.Integer(), remaining: Type.Integer() }),
    rateLimit: Type.Object({ perKeyPerMinute: Type.Integer(), verifyPerMinute: Type.Integer() }),
    payeeAccounts: Type.Array(
      Type.Object({
        bankCode: Type.String(),
        kind: Type.String(),
        holder: Type.String(),
        accountLast4: Type.String(),
        isPrimary: Type.Boolean(),
        status: Type.String(),
      }),
    ),
  },
  { $id: 'Me' },
);

export const quotaRoutes: FastifyPluginAsyncTypebox<{ auth: ApiAuthDeps; quota: QuotaService; payees: PayeeService }> = async (
  app,
  { auth, quota, payees },
) => {
  app.get(
    '/api/v1/quota',
    {
      onRequest: apiAuth(auth, ['read']),
      schema: {
        tags: ['account'],
        operationId: 'getQuota',
        summary: 'Quota of the current monthly period (costs nothing)',
        security: bearerSecurity,
        querystring: NoQuery,
        response: { 200: success(QuotaResource), ...errorResponses(...API_ERRORS) },
      },
    },
    async (req) => {
      const { shop, plan } = req.apiAuth!;
      const q = await quota.snapshot(shop, plan);
      // The answer's own figures make the X-Service-Quota-* headers (one read, not a second for the headers).
      req.quotaHeaders = { limit: q.limit, used: q.used, remaining: q.remaining, resetDays: q.daysUntilReset };
      return { success: true as const, data: q };
    },
  );

  app.get(
    '/api/v1/me',
    {
      onRequest: apiAuth(auth, ['read']),
      schema: {
        tags: ['account'],
        operationId: 'getMe',
        summary: 'The shop, key, plan, quota and payee accounts behind this key',
        security: bearerSecurity,
        querystring: NoQuery,
        response: { 200: success(MeResource), ...errorResponses(...API_ERRORS) },
      },
    },
    async (req) => {
      const { shop, plan, key } = req.apiAuth!;
      const [q, tq, accounts] = await Promise.all([quota.snapshot(shop, plan), quota.testSnapshot(shop.id), payees.list(shop.id)]);
      req.quotaHeaders = { limit: q.limit, used: q.used, remaining: q.remaining, resetDays: q.daysUntilReset };
      return {
        success: true as const,
        data: {
          shop: { id: shop.id, name: shop.name },
          apiKey: {
            name: key.name,
            prefix: key.prefix,
            environment: key.environment,
            scopes: key.scopes,
            lastUsedAt: key.lastUsedAt,
            createdAt: key.createdAt,
          },
          plan: { code: plan.code, name: plan.name },
          quota: q,
          testQuota: tq,
          rateLimit: { perKeyPerMinute: auth.perKeyPerMinute, verifyPerMinute: auth.verifyPerMinute },
          payeeAccounts: accounts,
        },
      };
    },
  );
};
