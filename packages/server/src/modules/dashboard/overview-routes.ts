import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../errors.js';
import { errorResponses, IdParams, MoneyString, Nullable, quotaWallResponse, satangOf, success } from '../../http/common-schemas.js';
import { isoWithOffset } from '../../http/envelope.js';
import { ShopViewSchema, shopView } from '../accounts/account-schemas.js';
import { requireSession, type DashboardAuthDeps } from '../accounts/session-auth.js';
import { VerifyRecordSchema } from '../transactions/transaction-schemas.js';
import { DailySchema, DashboardTransactionSchema, QuotaSnapshotSchema, TestQuotaSchema } from './dashboard-schemas.js';
import type { OverviewService } from './overview-service.js';
import type { ShopService } from '../shops/shop-service.js';
import { hardLimitOf, type PlanService } from '../plans/plan-service.js';
import type { QuotaService } from '../quota/quota-service.js';
import type { PayeeService } from '../payees/payee-service.js';
import type { TransactionService } from '../transactions/transaction-service.js';
import type { TransactionRecord } from '../transactions/transaction-record.js';
import type { VerificationService } from '../verification/verification-service.js';
import { amountRange, DashboardListQuery } from '../reports/reports-schemas.js';

const tags = ['dashboard'];
const E = [401, 429];

export interface OverviewRouteDeps {
  auth: DashboardAuthDeps;
  overview: OverviewService;
  shops: Pick<ShopService, 'get'>;
  plans: Pick<PlanService, 'get'>;
  quota: Pick<QuotaService, 'snapshot' | 'testSnapshot'>;
  payees: Pick<PayeeService, 'list'>;
  transactions: Pick<TransactionService, 'list' | 'get' | 'supersededBy'>;
  verification: Pick<VerificationService, 'verifySlip' | 'atQuotaWall'>;
  clock: Clock;
  maxImageBytes: number;
  timeZone: string;
}

/** The overview, the results list and the dashboard's own slip check. */
export const overviewRoutes: FastifyPluginAsyncTypebox<OverviewRouteDeps> = async (app, deps) => {
  const { auth, overview, shops, plans, quota, payees, transactions, verification, clock, maxImageBytes, timeZone } = deps;
  const session = requireSession(auth);
  /** The list's and the detail's records with the later check that replaced each (one query for them all). */
  const withSuperseders = async (shopId: string, items: TransactionRecord[]) => {
    const by = await transactions.supersededBy(shopId, items);
    return items.map((r) => ({ ...r, supersededBy: by.get(r.id) ?? null }));
  };

  app.get(
    '/api/dashboard/overview',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Plan, trial, quota, 30-day chart and recent results',
        response: {
          200: success(
            Type.Object({
              shop: ShopViewSchema,
              plan: Type.Object({
                code: Type.String(),
                name: Type.String(),
                monthlyLimit: Type.Integer(),
                trialDays: Type.Integer({ description: "the trial's length (the overview says the trial allowance is for these days)" }),
                apiAccess: Type.Boolean(),
                webhooks: Type.Boolean(),
                priceThb: Type.Number(),
                allowOverage: Type.Boolean({ description: 'checks continue past the limit and the free buffer, charged per check' }),
                freeBuffer: Type.Integer({ description: 'checks past the limit that are never charged' }),
                overagePriceSatang: Type.Integer({ description: 'the charge per check past the free buffer (integer satang)' }),
                hardLimit: Type.Integer({ description: 'where checks stop in a period (limit + free buffer, and overage up to its cap)' }),
              }),
              trialDaysLeft: Nullable(Type.Integer()),
              quota: QuotaSnapshotSchema,
              testQuota: TestQuotaSchema,
              payeeCount: Type.Integer(),
              daily: Type.Array(DailySchema),
              recent: Type.Array(DashboardTransactionSchema),
            }),
          ),
          ...errorResponses(...E),
        },
      },
    },
    async (req) => {
      const shop = await shops.get(req.dashboard!.shopId);
      const plan = await plans.get(shop.planCode);
      const [quotaNow, testQuota, payeeAccounts, daily, recent] = await Promise.all([
        quota.snapshot(shop, plan),
        quota.testSnapshot(shop.id),
        payees.list(shop.id),
        overview.daily(shop.id),
        transactions.list(shop.id, { limit: 10 }),
      ]);
      return {
        success: true as const,
        data: {
          shop: shopView(shop),
          plan: {
            code: plan.code,
            name: plan.name,
            monthlyLimit: plan.monthlyLimit,
            trialDays: plan.trialDays,
            apiAccess: plan.apiAccess,
            webhooks: plan.webhooks,
            priceThb: plan.priceThb,
            allowOverage: plan.allowOverage,
            freeBuffer: plan.freeBuffer,
            overagePriceSatang: plan.overagePriceSatang,
            hardLimit: hardLimitOf(plan),
          },
          trialDaysLeft: overview.trialDaysLeft(shop.trialEndsAt, shop.state),
          quota: quotaNow,
          testQuota,
          payeeCount: payeeAccounts.filter((p) => p.status === 'ACTIVE').length,
          daily,
          recent: await withSuperseders(shop.id, recent.items),
        },
      };
    },
  );

  app.get(
    '/api/dashboard/transactions',
    {
      onRequest: session,
      schema: {
        tags,
        summary: "The shop's results from every channel, newest first (plus an amount range)",
        querystring: DashboardListQuery,
        response: {
          200: success(Type.Object({ items: Type.Array(DashboardTransactionSchema), nextCursor: Nullable(Type.String()) })),
          ...errorResponses(400, ...E),
        },
      },
    },
    async (req) => {
      const shopId = req.dashboard!.shopId;
      const page = await transactions.list(shopId, amountRange(req.query));
      return { success: true as const, data: { ...page, items: await withSuperseders(shopId, page.items) } };
    },
  );

  app.get(
    '/api/dashboard/transactions/:id',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'One result (404 for unknown ids and other shops alike)',
        // Any length, like the public route: an id no record can have is a 404 (transactions.get), not a 400.
        params: IdParams,
        response: { 200: success(DashboardTransactionSchema), ...errorResponses(404, ...E) },
      },
    },
    async (req) => {
      const shopId = req.dashboard!.shopId;
      const [record] = await withSuperseders(shopId, [await transactions.get(shopId, req.params.id)]);
      return { success: true as const, data: record! };
    },
  );

  // Raw image bytes, like the public API; only inside this plugin, so no other route reads binary bodies.
  for (const type of ['application/octet-stream', /^image\/[\w.+-]+$/] as const) {
    if (typeof type === 'string' && app.hasContentTypeParser(type)) app.removeContentTypeParser(type);
    app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: maxImageBytes }, (_req, body, done) => done(null, body));
  }

  app.post(
    '/api/dashboard/verify',
    {
      onRequest: session,
      bodyLimit: maxImageBytes,
      schema: {
        tags,
        summary: 'Check one slip from the dashboard (raw image bytes; live; shop quota)',
        querystring: Type.Object(
          { expectedAmount: Type.Optional(MoneyString('expected amount, more than 0; a different bank amount gives AMOUNT_MISMATCH')) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            data: VerifyRecordSchema,
            meta: Type.Object({ requestId: Type.String(), timestamp: Type.String() }),
          }),
          ...errorResponses(400, 413, 415, 422, 503, ...E),
          ...quotaWallResponse,
        },
      },
    },
    async (req) => {
      const image = req.body as unknown;
      if (!Buffer.isBuffer(image) || !image.length)
        throw new AppError('INVALID_IMAGE', 400, 'Send the slip image (JPEG or PNG) as the request body');
      const expectedAmountSatang = satangOf('expectedAmount', req.query.expectedAmount, { positive: true });
      const shopId = req.dashboard!.shopId;
      try {
        const out = await verification.verifySlip({
          shopId,
          source: 'DASHBOARD',
          image,
          environment: 'live',
          expectedAmountSatang,
        });
        return {
          success: true as const,
          data: { ...out.record, quota: out.quota },
          meta: { requestId: req.id, timestamp: isoWithOffset(clock.now(), timeZone) },
        };
      } catch (e) {
        // The quota answer stays (nothing was checked), but a picture of a transfer this shop already
        // credited says so: staff told only "quota used up" find the first payment's money in the bank
        // app and hand the goods over twice. No checker call, no unit, no record.
        throw await verification.atQuotaWall(e, shopId, image);
      } finally {
        req.body = undefined; // the image must not outlive the call
      }
    },
  );
};
