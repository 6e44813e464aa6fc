import type { Db } from '../../db/db.js';
import { AppError } from '../../errors.js';
import type { QuotaReason } from '../../lib/error-codes.js';
import type { Clock } from '../../lib/clock.js';
import { periodOf } from '../../lib/period.js';
import type { AuditService } from '../audit/audit-service.js';
import { hardLimitOf, overageOf, TRIAL_PLAN, trialMsOf, type Plan } from '../plans/plan-service.js';
import type { Shop } from '../shops/shop-service.js';
import { quotaRepo } from './quota-repo.js';
import { createRecentUsage } from './recent-usage.js';
import type { TestUsageCounter } from './test-usage-counter.js';

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

/** The pool had no unit left: thrown inside the reservation's transaction so it rolls back. */
class Refused extends Error {}

export function createQuotaService(deps: {
  db: Db;
  clock: Clock;
  audit: AuditService;
  testCounter: TestUsageCounter;
  timeZone: string;
  testQuotaLimit: number;
  /** How old the counter a replay from memory reports may be (`recentSnapshot`): REPLAY_MEMORY_MS, at most a second. */
  recentMs?: number;
}) {
  const { db, clock, audit, testCounter, timeZone, testQuotaLimit } = deps;
  const recent = createRecentUsage({ ms: deps.recentMs ?? 0 });
  const period = () => periodOf(clock.now(), timeZone);

  const usedIn = (shopId: string, period: string): Promise<number> => quotaRepo.used(db, shopId, period);

  /** A trial past its end date checks nothing more, whatever of its pool it left unused. */
  const trialEnded = (shop: Shop, plan: Plan) =>
    plan.code === TRIAL_PLAN && !!shop.trialEndsAt && new Date(shop.trialEndsAt) <= clock.now();

  /**
   * Live units a trial used in calendar months before `p`: a trial's pool is its plan's limit over its
   * days (the spec's "50 slips, 7 days"), so a trial that crosses a month does not start the new month
   * with a fresh 50. 0 for every other plan, and without a read for a trial inside one month.
   */
  async function trialCarry(shop: Shop, plan: Plan, p: string): Promise<number> {
    if (plan.code !== TRIAL_PLAN || !shop.trialEndsAt) return 0;
    const from = periodOf(new Date(new Date(shop.trialEndsAt).getTime() - trialMsOf(plan)), timeZone).periodMonth;
    return from < p ? quotaRepo.usedBetween(db, shop.id, from, p) : 0;
  }

  /** `ended`: an ended trial, whose `remaining` is 0 (the screens said "40 left" beside "trial ended"). */
  function shape(plan: Plan, used: number, p = period(), ended = false): QuotaSnapshot {
    const limit = plan.monthlyLimit;
    return {
      used,
      limit,
      remaining: ended ? 0 : Math.max(0, limit - used),
      percentUsed: limit > 0 ? Math.min(100, Math.floor((used * 100) / limit)) : 100,
      allowOverage: plan.allowOverage,
      planCode: plan.code,
      periodMonth: p.periodMonth,
      daysUntilReset: p.daysUntilReset,
      overage: overageOf(plan, used),
    };
  }

  const quotaBody = (q: QuotaSnapshot) => ({ used: q.used, limit: q.limit, remaining: q.remaining });

  /** The conditional take inside `trx`; undefined when the pool is used up (the caller answers 402 outside the transaction). */
  async function takeLive(shop: Shop, plan: Plan, p: string, trx: Db, carry: number): Promise<Reservation | undefined> {
    const now = clock.now().toISOString();
    const take = () => quotaRepo.takeLive(trx, shop.id, p, hardLimitOf(plan) - carry, now);
    recent.wrote(shop.id);
    let used = await take();
    if (used === undefined) {
      // First check of the period: create the counter row, then try once more (the row exists on every later call).
      await quotaRepo.ensureRow(trx, shop.id, p, now);
      used = await take();
    }
    return used === undefined ? undefined : { shopId: shop.id, period: p, pool: 'live', used: used + carry };
  }

  async function testOver(shopId: string, p: string) {
    const used = await testCounter.get(shopId, p);
    return new AppError('TEST_QUOTA_EXCEEDED', 402, `Test keys are limited to ${testQuotaLimit} calls per month`, {
      quota: { used, limit: testQuotaLimit, remaining: 0 },
      reason: 'TEST_CAP' satisfies QuotaReason,
    });
  }

  /** Gives one unit back inside `trx`. */
  async function releaseIn(trx: Db, res: Reservation): Promise<{ after?: () => Promise<void> }> {
    if (res.pool === 'test') {
      await testCounter.release(res.shopId, res.period, trx);
      return {};
    }
    recent.wrote(res.shopId);
    await quotaRepo.giveBackLive(trx, res.shopId, res.period);
    return {};
  }

  return {
    period,
    async snapshot(shop: Shop, plan: Plan): Promise<QuotaSnapshot> {
      const p = period();
      const used = (await usedIn(shop.id, p.periodMonth)) + (await trialCarry(shop, plan, p.periodMonth));
      return shape(plan, used, p, trialEnded(shop, plan));
    },
    /**
     * `snapshot` from this node's copy of the counter when it is less than `recentMs` old (recent-usage.ts):
     * for the answers the replay memory gives, under the same one-second promise. Everything else reads live.
     */
    async recentSnapshot(shop: Shop, plan: Plan): Promise<QuotaSnapshot> {
      const p = period();
      let used = recent.get(shop.id, p.periodMonth);
      if (used === undefined) {
        const loadedAt = recent.begin();
        used = await usedIn(shop.id, p.periodMonth);
        recent.keep(shop.id, p.periodMonth, used, loadedAt);
      }
      // The replay path: no extra await for the plans that carry nothing (every plan with API keys).
      if (plan.code === TRIAL_PLAN) used += await trialCarry(shop, plan, p.periodMonth);
      return shape(plan, used, p, trialEnded(shop, plan));
    },
    async testSnapshot(shopId: string): Promise<TestQuotaSnapshot> {
      const used = await testCounter.get(shopId, period().periodMonth);
      return { used, limit: testQuotaLimit, remaining: Math.max(0, testQuotaLimit - used) };
    },
    quotaBody,
    /** A snapshot from a counter value the caller already holds (e.g. `Reservation.used`): no read. */
    shapeOf(plan: Plan, used: number): QuotaSnapshot {
      return shape(plan, used);
    },
    /**
     * Takes one unit before the checker is asked. `mark` runs in the same transaction as the take
     * (verification marks the unit on its image claim), so a unit is never taken without a durable
     * note of who holds it: a crash leaves the mark, and the mark's lease brings the unit back.
     * `mark` answering false (the claim is no longer ours) rolls the take back and throws.
     * `first` runs in that transaction before the take, with the unit it is for, and a refusal rolls
     * it back too: verification writes a new image's claim there, so a second upload of the same image
     * meets that claim (and waits for its record) before it could meet a pool the first one emptied.
     * Test keys use their own cap and nothing else.
     */
    async reserve(
      shop: Shop,
      plan: Plan,
      environment: 'live' | 'test',
      mark: (trx: Db, res: Reservation) => Promise<boolean> = async () => true,
      first?: (trx: Db, unit: Pick<Reservation, 'pool' | 'period'>) => Promise<void>,
    ): Promise<Reservation> {
      const p = period().periodMonth;
      const lost = () => new AppError('SERVICE_UNAVAILABLE', 503, 'The check was interrupted; send the same slip again');
      // A refused take ends the transaction by this throw, so nothing `first` wrote is kept.
      const refusedIsNull = (err: unknown) => {
        if (err instanceof Refused) return null;
        throw err;
      };
      if (environment === 'test') {
        // A test call draws only on its own cap, never on the live pool (the counter is in the database).
        const out = await db
          .transaction()
          .execute(async (trx) => {
            await first?.(trx, { pool: 'test', period: p });
            if ((await testCounter.reserve(shop.id, p, testQuotaLimit, trx)) !== 'ok') throw new Refused();
            const res: Reservation = { shopId: shop.id, period: p, pool: 'test' };
            if (!(await mark(trx, res))) throw lost();
            return res;
          })
          .catch(refusedIsNull);
        if (out) return out;
        throw await testOver(shop.id, p);
      }
      const carry = await trialCarry(shop, plan, p);
      if (trialEnded(shop, plan)) {
        throw new AppError('QUOTA_EXCEEDED', 402, 'The 7-day trial has ended; choose a paid plan to keep checking slips', {
          quota: quotaBody(shape(plan, (await usedIn(shop.id, p)) + carry, undefined, true)),
          reason: 'TRIAL_ENDED' satisfies QuotaReason,
        });
      }
      // Reads for the 402 body happen after the transaction: on SQLite it holds the only connection.
      const res = await db
        .transaction()
        .execute(async (trx) => {
          await first?.(trx, { pool: 'live', period: p });
          const r = await takeLive(shop, plan, p, trx, carry);
          if (!r) throw new Refused();
          if (!(await mark(trx, r))) throw lost();
          return r;
        })
        .catch(refusedIsNull);
      if (res) return res;
      const quota = quotaBody(shape(plan, (await usedIn(shop.id, p)) + carry));
      if (plan.code === TRIAL_PLAN) {
        // Not "next month": the trial's pool does not start again; a paid plan is the way on.
        throw new AppError(
          'QUOTA_EXCEEDED',
          402,
          `The trial's ${plan.monthlyLimit} slips are used up; choose a paid plan to keep checking slips`,
          {
            quota,
            reason: 'TRIAL_QUOTA' satisfies QuotaReason,
          },
        );
      }
      throw new AppError(
        'QUOTA_EXCEEDED',
        402,
        'Monthly slip quota is used up; it resets at the start of next month or with a larger plan',
        {
          quota,
          reason: 'MONTHLY_QUOTA' satisfies QuotaReason,
        },
      );
    },
    releaseIn,
    /** A unit for a record whose reservation was already returned (its claim was swept or taken over): counted unconditionally. */
    async chargeIn(trx: Db, res: Reservation): Promise<void> {
      const now = clock.now().toISOString();
      if (res.pool === 'test') {
        await quotaRepo.ensureRow(trx, res.shopId, res.period, now);
        await quotaRepo.chargeTest(trx, res.shopId, res.period);
        return;
      }
      recent.wrote(res.shopId);
      await quotaRepo.ensureRow(trx, res.shopId, res.period, now);
      await quotaRepo.chargeLive(trx, res.shopId, res.period, now);
    },
    /** Support correction of the current period's counters; always audited. */
    async adjust(shopId: string, values: { used?: number; testUsed?: number }, actor: string) {
      const p = period().periodMonth;
      const now = clock.now().toISOString();
      for (const v of [values.used, values.testUsed]) {
        if (v !== undefined && (!Number.isInteger(v) || v < 0))
          throw new AppError('VALIDATION_ERROR', 400, 'counters must be non-negative integers');
      }
      await quotaRepo.ensureRow(db, shopId, p, now);
      const before = { used: await usedIn(shopId, p), testUsed: await testCounter.get(shopId, p) };
      recent.wrote(shopId);
      if (values.used !== undefined) await quotaRepo.setLive(db, shopId, p, values.used, now);
      if (values.testUsed !== undefined) await testCounter.set(shopId, p, values.testUsed);
      await audit.record({ shopId, actor, action: 'quota.adjust', target: shopId, detail: { period: p, before, after: values } });
    },
  };
}
export type QuotaService = ReturnType<typeof createQuotaService>;
