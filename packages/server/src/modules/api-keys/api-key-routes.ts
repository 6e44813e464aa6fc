import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Clock } from '../../lib/clock.js';
import { periodStart } from '../../lib/period.js';
import { errorResponses, IdParams, success } from '../../http/common-schemas.js';
import { requireSession, type DashboardAuthDeps } from '../accounts/session-auth.js';
import { requireOwner } from '../team/owner-guard.js';
import type { PlanService } from '../plans/plan-service.js';
import type { ShopService } from '../shops/shop-service.js';
import type { TransactionService } from '../transactions/transaction-service.js';
import type { ApiKeyService, ApiKeyView } from './api-key-service.js';
import { ApiKeyCreateBody, ApiKeySchema, NewKeySchema } from './api-key-schemas.js';
import { NO_USAGE, usageByKey, type KeyUsage } from './api-key-usage.js';

const tags = ['dashboard'];
const E = [401, 429];

/** The API keys screen (owner-only, reads included); every lookup carries the session's shop id. */
export interface ApiKeyRouteDeps {
  auth: DashboardAuthDeps;
  apiKeys: Pick<ApiKeyService, 'list' | 'create' | 'rotate' | 'revoke'>;
  shops: Pick<ShopService, 'get'>;
  plans: Pick<PlanService, 'get'>;
  transactions: Pick<TransactionService, 'countsByApiKey'>;
  clock: Clock;
  timeZone: string;
}

export const apiKeyRoutes: FastifyPluginAsyncTypebox<ApiKeyRouteDeps> = async (app, deps) => {
  const { auth, apiKeys, shops, plans, transactions, clock, timeZone } = deps;
  const owner = [requireSession(auth), requireOwner(auth)];
  const actor = (userId: string) => `user:${userId}`;

  // Per-key usage this quota period, split by result status (keys screen: "with scope, usage metrics").
  const keyUsage = (shopId: string) => usageByKey(transactions, shopId, periodStart(clock.now(), timeZone).toISOString());
  const withCalls = (k: ApiKeyView, usage: Map<string, KeyUsage>) => ({
    ...k,
    callsThisMonth: usage.get(k.id)?.total ?? 0,
    usage: usage.get(k.id) ?? NO_USAGE,
  });

  app.get(
    '/api/dashboard/api-keys',
    {
      onRequest: owner,
      schema: {
        tags,
        summary: 'API keys with calls this month',
        response: { 200: success(Type.Object({ apiAccess: Type.Boolean(), items: Type.Array(ApiKeySchema) })), ...errorResponses(...E) },
      },
    },
    async (req) => {
      const shop = await shops.get(req.dashboard!.shopId);
      const [plan, keys, calls] = await Promise.all([plans.get(shop.planCode), apiKeys.list(shop.id), keyUsage(shop.id)]);
      return { success: true as const, data: { apiAccess: plan.apiAccess, items: keys.map((k) => withCalls(k, calls)) } };
    },
  );

  app.post(
    '/api/dashboard/api-keys',
    {
      onRequest: owner,
      schema: {
        tags,
        summary: 'Create a key; the full key is in this answer only (403 PLAN_API_ACCESS_REQUIRED on TRIAL)',
        body: ApiKeyCreateBody,
        response: { 201: success(NewKeySchema), ...errorResponses(400, 403, ...E) },
      },
    },
    async (req, reply) => {
      const created = await apiKeys.create(
        req.dashboard!.shopId,
        { name: req.body.name, environment: req.body.environment, scopes: req.body.scopes ?? ['verify'] },
        actor(req.dashboard!.userId),
      );
      return reply
        .status(201)
        .send({ success: true as const, data: { key: created.key, apiKey: { ...created.view, callsThisMonth: 0, usage: NO_USAGE } } });
    },
  );

  app.post(
    '/api/dashboard/api-keys/:id/rotate',
    {
      onRequest: owner,
      schema: {
        tags,
        summary: 'Replace a key with a new one (the old stops at once)',
        params: IdParams,
        response: { 201: success(NewKeySchema), ...errorResponses(403, 404, 409, ...E) },
      },
    },
    async (req, reply) => {
      const created = await apiKeys.rotate(req.params.id, actor(req.dashboard!.userId), req.dashboard!.shopId);
      return reply
        .status(201)
        .send({ success: true as const, data: { key: created.key, apiKey: { ...created.view, callsThisMonth: 0, usage: NO_USAGE } } });
    },
  );

  app.post(
    '/api/dashboard/api-keys/:id/revoke',
    {
      onRequest: owner,
      schema: {
        tags,
        summary: 'Revoke a key',
        params: IdParams,
        response: { 200: success(Type.Object({ apiKey: ApiKeySchema })), ...errorResponses(404, ...E) },
      },
    },
    async (req) => {
      const shopId = req.dashboard!.shopId;
      const k = await apiKeys.revoke(req.params.id, actor(req.dashboard!.userId), shopId);
      return { success: true as const, data: { apiKey: withCalls(k, await keyUsage(shopId)) } };
    },
  );
};
