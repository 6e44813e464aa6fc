import { preparedQuery, type Db } from '../../db/db.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { periodOf } from '../../lib/period.js';
import type { AuditService } from '../audit/audit-service.js';
import { hardLimitOf, overageOf, TRIAL_PLAN, type Plan } from '../plans/plan-service.js';
import type { Shop } from '../shops/shop-service.js';
import { ensureUsageRow, type TestUsageCounter } from './test-usage-counter.js';

export interface QuotaSnapshot {
  used: number;
  limit: number;
  remaining: number;
  percentUsed: number;
  allowOverage: boolean;
  planCode: string;
  periodMonth: string;
  daysUntilReset: number;
  overage: number;
}

export interface TestQuotaSnapshot {
  used: number | null;
  limit: number;
  remaining: number;
}

/** What a reserve took, so a check whose checker never answered can give it back. */
export interface Reservation {
  shopId: string;
  period: string;
  pool: 'live' | 'test';
  /** Live pool: the counter value this reservation's own increment produced (RETURNING). */
  used?: number;
}

// Hot statements (every verify and every authenticated answer): SQL built once, see preparedQuery.
const usedQuery = preparedQuery((db: Db, shopId: string, p: string) =>
  db.selectFrom('quota_usage').select('used').where('shop_id', '=', shopId).where('period', '=', p));
// The conditional update is the whole exactly-k rule: the database lets k increments through.
// RETURNING gives the value our own increment made: the caller answers with it instead of reading
// the counter again, and exactly one reservation sees each value (threshold alerts rely on that).
const takeQuery = preparedQuery((db: Db, shopId: string, p: string, hardLimit: number, now: string) =>
  db.updateTable('quota_usage').set((eb) => ({ used: eb('used', '+', 1), updated_at: now }))
    .where('shop_id', '=', shopId).where('period', '=', p).where('used', '<', hardLimit).returning('used'));

export function createQuotaService(deps: { db: Db; clock: Clock; audit: AuditService; testCounter: TestUsageCounter; timeZone: string; testQuotaLimit: number }) {
  const { db, clock, audit, testCounter, timeZone, testQuotaLimit } = deps;
  const period = () => periodOf(clock.now(), timeZone);

  async function usedIn(shopId: string, p: string, trx: Db = db): Promise<number> {
    const [r] = await usedQuery(trx, shopId, p);
    return r?.used ?? 0;
  }

  function shape(plan: Plan, used: number, p = period()): QuotaSnapshot {
    const limit = plan.monthlyLimit;
    return {
      used, limit, remaining: Math.max(0, limit - used), percentUsed: limit > 0 ? Math.min(100, Math.floor((used * 100) / limit)) : 100,
      allowOverage: plan.allowOverage, planCode: plan.code, periodMonth: p.periodMonth, daysUntilReset: p.daysUntilReset, overage: overageOf(plan, used),
    };
  }

  const quotaBody = (q: QuotaSnapshot) => ({ used: q.used, limit: q.limit, remaining: q.remaining });

  async function reserveLive(shop: Shop, plan: Plan, p: string): Promise<Reservation> {
    const now = clock.now();
    if (plan.code === TRIAL_PLAN && shop.trialEndsAt && new Date(shop.trialEndsAt) <= now) {
      throw new AppError('QUOTA_EXCEEDED', 402, 'The 7-day trial has ended; choose a paid plan to keep checking slips', { quota: quotaBody(shape(plan, await usedIn(shop.id, p))) });
    }
    const take = async () => (await takeQuery(db, shop.id, p, hardLimitOf(plan), now.toISOString()))[0]?.used;
    let used = await take();
    if (used === undefined) {
      // First check of the period: create the counter row, then try once more (the row exists on every later call).
      await ensureUsageRow(db, shop.id, p, now.toISOString());
      used = await take();
    }
    if (used === undefined) {
      throw new AppError('QUOTA_EXCEEDED', 402, 'Monthly slip quota is used up; it resets at the start of next month or with a larger plan', { quota: quotaBody(shape(plan, await usedIn(shop.id, p))) });
    }
    return { shopId: shop.id, period: p, pool: 'live', used: Number(used) };
  }

  return {
    period,
    async snapshot(shop: Shop, plan: Plan): Promise<QuotaSnapshot> {
      const p = period();
      return shape(plan, await usedIn(shop.id, p.periodMonth), p);
    },
    async testSnapshot(shopId: string): Promise<TestQuotaSnapshot> {
      const used = await testCounter.get(shopId, period().periodMonth);
      return { used, limit: testQuotaLimit, remaining: used === null ? 0 : Math.max(0, testQuotaLimit - used) };
    },
    quotaBody,
    /** A snapshot from a counter value the caller already holds (e.g. `Reservation.used`): no read. */
    shapeOf(plan: Plan, used: number): QuotaSnapshot {
      return shape(plan, used);
    },
    /**
     * Takes one unit before the checker is asked; `release` gives it back when the checker did not
     * answer (charging rule: a unit is charged exactly when the checker was asked and answered).
     * Test keys use their own cap; when that counter cannot be read they draw on the shop pool.
     */
    async reserve(shop: Shop, plan: Plan, environment: 'live' | 'test'): Promise<Reservation> {
      const p = period().periodMonth;
      if (environment === 'test') {
        const r = await testCounter.reserve(shop.id, p, testQuotaLimit);
        if (r === 'ok') return { shopId: shop.id, period: p, pool: 'test' };
        if (r === 'over') {
          const used = await testCounter.get(shop.id, p);
          throw new AppError('TEST_QUOTA_EXCEEDED', 402, `Test keys are limited to ${testQuotaLimit} calls per month`, { quota: { used: used ?? testQuotaLimit, limit: testQuotaLimit, remaining: 0 } });
        }
      }
      return reserveLive(shop, plan, p);
    },
    async release(res: Reservation): Promise<void> {
      if (res.pool === 'test') return testCounter.release(res.shopId, res.period);
      await db.updateTable('quota_usage').set((eb) => ({ used: eb('used', '-', 1) }))
        .where('shop_id', '=', res.shopId).where('period', '=', res.period).where('used', '>', 0).execute();
    },
    /** Support correction of the current period's counters; always audited. */
    async adjust(shopId: string, values: { used?: number; testUsed?: number }, actor: string) {
      const p = period().periodMonth;
      const now = clock.now().toISOString();
      for (const v of [values.used, values.testUsed]) {
        if (v !== undefined && (!Number.isInteger(v) || v < 0)) throw new AppError('VALIDATION_ERROR', 400, 'counters must be non-negative integers');
      }
      await ensureUsageRow(db, shopId, p, now);
      const before = { used: await usedIn(shopId, p), testUsed: await testCounter.get(shopId, p) };
      if (values.used !== undefined) await db.updateTable('quota_usage').set({ used: values.used, updated_at: now }).where('shop_id', '=', shopId).where('period', '=', p).execute();
      if (values.testUsed !== undefined) await testCounter.set(shopId, p, values.testUsed);
      await audit.record({ shopId, actor, action: 'quota.adjust', target: shopId, detail: { period: p, before, after: values } });
    },
  };
}
export type QuotaService = ReturnType<typeof createQuotaService>;
