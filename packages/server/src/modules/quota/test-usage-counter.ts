import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';
import { quotaRepo } from './quota-repo.js';

/**
 * Where test-key usage is counted: a column of quota_usage, on every install (with or without Redis).
 * A check cannot run without the database, so the test cap can always be measured, is charged in the
 * same transaction as its record, and a test call never falls back onto the shop's paid live pool
 * (it did when the count lived in Redis and Redis was lost: docs/operations.md "Redis lost").
 */
export interface TestUsageCounter {
  get(shopId: string, period: string): Promise<number>;
  /** Joins the caller's transaction `trx`. */
  reserve(shopId: string, period: string, cap: number, trx?: Db): Promise<'ok' | 'over'>;
  release(shopId: string, period: string, trx?: Db): Promise<void>;
  set(shopId: string, period: string, value: number): Promise<void>;
}

export function createDbTestUsageCounter(db: Db, clock: Clock): TestUsageCounter {
  return {
    get: (shopId, period) => quotaRepo.testUsed(db, shopId, period),
    async reserve(shopId, period, cap, trx = db) {
      const now = clock.now().toISOString();
      await quotaRepo.ensureRow(trx, shopId, period, now);
      return (await quotaRepo.takeTest(trx, shopId, period, cap, now)) ? 'ok' : 'over';
    },
    release: (shopId, period, trx = db) => quotaRepo.giveBackTest(trx, shopId, period),
    async set(shopId, period, value) {
      const now = clock.now().toISOString();
      await quotaRepo.ensureRow(db, shopId, period, now);
      await quotaRepo.setTest(db, shopId, period, value, now);
    },
  };
}
