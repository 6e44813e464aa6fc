import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Clock } from '../../lib/clock.js';
import { errorResponses, success } from '../../http/common-schemas.js';
import type { ApiKeyService, ApiKeyView } from '../api-keys/api-key-service.js';
import type { AccountService } from '../accounts/account-service.js';
import type { PayeeService } from '../payees/payee-service.js';
import type { PlanService } from '../plans/plan-service.js';
import type { TransactionService } from '../transactions/transaction-service.js';
import { requireSession, type DashboardAuthDeps } from '../accounts/session-auth.js';
import { requireOwner } from '../team/owner-guard.js';
import type { Shop, ShopService } from '../shops/shop-service.js';
import { settingsOf, type ShopSettingsPatch } from '../shops/shop-settings.js';
import {
  ApiKeyCreateBody,
  ApiKeySchema,
  IdParams,
  NewKeySchema,
  PayeeCreateBody,
  PayeePatchBody,
  PayeeSchema,
  SettingsPatchBody,
  SettingsSchema,
} from './dashboard-schemas.js';
import { periodStart } from './overview-service.js';
import { NO_USAGE, usageByKey, type KeyUsage } from '../api-keys/api-key-usage.js';

const tags = ['dashboard'];
const E = [401, 429];

export function privacyOf(shop: Shop, defaultMonths: number) {
  const p = settingsOf(shop).privacy;
  return { autoDelete: p.autoDelete, retentionMonths: p.retentionMonths ?? defaultMonths };
}

export function notificationsOf(shop: Shop) {
  const { staleSlipAlerts, email } = settingsOf(shop).notifications;
  return { staleSlipAlerts, email };
}

/** Payee accounts, API keys and settings: every lookup carries the session's shop id. */
export interface ShopRouteDeps {
  auth: DashboardAuthDeps;
  shops: Pick<ShopService, 'get' | 'update'>;
  plans: Pick<PlanService, 'get'>;
  payees: Pick<PayeeService, 'list' | 'add' | 'update' | 'remove'>;
  apiKeys: Pick<ApiKeyService, 'list' | 'create' | 'rotate' | 'revoke'>;
  accounts: Pick<AccountService, 'getUser'>;
  transactions: Pick<TransactionService, 'countsByApiKey'>;
  clock: Clock;
  timeZone: string;
  /** PDPA_RETENTION_MONTHS: the retention a shop has until it picks its own. */
  defaultRetentionMonths: number;
}

export const shopRoutes: FastifyPluginAsyncTypebox<ShopRouteDeps> = async (app, deps) => {
  const { auth, shops, plans, payees, apiKeys, accounts, transactions, clock, timeZone, defaultRetentionMonths } = deps;
  const session = requireSession(auth);
  // Payee changes, API keys and shop settings changes are owner-only; staff read payees and settings.
  const owner = [session, requireOwner(auth)];
  const actor = (userId: string) => `user:${userId}`;

  // ---- payee accounts
  app.get(
    '/api/dashboard/payees',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Payee accounts (last 4 only)',
        response: { 200: success(Type.Object({ items: Type.Array(PayeeSchema) })), ...errorResponses(...E) },
      },
    },
    async (req) => ({ success: true as const, data: { items: await payees.list(req.dashboard!.shopId) } }),
  );

  app.post(
    '/api/dashboard/payees',
    {
      onRequest: owner,
      schema: {
        tags,
        summary: 'Add a payee account (full number entered once)',
        body: PayeeCreateBody,
        response: { 201: success(PayeeSchema), ...errorResponses(400, ...E) },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const p = await payees.add(
        req.dashboard!.shopId,
        {
          bankCode: b.bankCode ?? '',
          accountNumber: b.accountNumber,
          holder: b.holder,
          kind: b.kind,
          proxyType: b.proxyType,
          isPrimary: b.isPrimary,
        },
        actor(req.dashboard!.userId),
      );
      return reply.status(201).send({ success: true as const, data: p });
    },
  );

  app.patch(
    '/api/dashboard/payees/:id',
    {
      onRequest: owner,
      schema: {
        tags,
        summary: 'Edit holder, make primary, enable/disable',
        params: IdParams,
        body: PayeePatchBody,
        response: { 200: success(PayeeSchema), ...errorResponses(400, 404, ...E) },
      },
    },
    async (req) => ({
      success: true as const,
      data: await payees.update(req.dashboard!.shopId, req.params.id, req.body, actor(req.dashboard!.userId)),
    }),
  );

  app.delete(
    '/api/dashboard/payees/:id',
    {
      onRequest: owner,
      schema: {
        tags,
        summary: 'Remove a payee account',
        params: IdParams,
        response: { 200: success(Type.Object({ deleted: Type.Boolean() })), ...errorResponses(404, ...E) },
      },
    },
    async (req) => {
      await payees.remove(req.dashboard!.shopId, req.params.id, actor(req.dashboard!.userId));
      return { success: true as const, data: { deleted: true } };
    },
  );

  // ---- API keys
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

  // ---- settings
  const settingsOf = async (shopId: string, userId: string) => {
    const [shop, user] = await Promise.all([shops.get(shopId), accounts.getUser(userId)]);
    return {
      shopName: shop.name,
      language: shop.language,
      notifications: notificationsOf(shop),
      privacy: privacyOf(shop, defaultRetentionMonths),
      email: user.email,
    };
  };

  app.get(
    '/api/dashboard/settings',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Shop name, language, notification preferences',
        response: { 200: success(SettingsSchema), ...errorResponses(...E) },
      },
    },
    async (req) => ({ success: true as const, data: await settingsOf(req.dashboard!.shopId, req.dashboard!.userId) }),
  );

  app.patch(
    '/api/dashboard/settings',
    {
      onRequest: owner,
      schema: {
        tags,
        summary: 'Change shop name, language, notification preferences',
        body: SettingsPatchBody,
        response: { 200: success(SettingsSchema), ...errorResponses(400, ...E) },
      },
    },
    async (req) => {
      const { shopId, userId } = req.dashboard!;
      const b = req.body;
      let settings: ShopSettingsPatch | undefined;
      if (b.notifications || b.privacy) {
        const shop = await shops.get(shopId);
        settings = {
          ...(b.notifications ? { notifications: { ...notificationsOf(shop), ...b.notifications } } : {}),
          ...(b.privacy ? { privacy: { ...privacyOf(shop, defaultRetentionMonths), ...b.privacy } } : {}),
        };
      }
      await shops.update(shopId, { name: b.shopName, language: b.language, settings }, actor(userId));
      return { success: true as const, data: await settingsOf(shopId, userId) };
    },
  );
};
