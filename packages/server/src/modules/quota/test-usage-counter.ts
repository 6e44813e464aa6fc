import type { Redis } from 'ioredis';
import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';
import { quotaRepo } from './quota-repo.js';

/**
 * Where test-key usage is counted. Embedded: a column of quota_usage (durable). With Redis: a key per
 * shop and period, shared by every node. `null`/`unavailable` means "cannot be measured right now":
 * the caller then draws on the shop's normal pool instead (spec: Me resource rule 2).
 */
export interface TestUsageCounter {
  /** true when the counter lives in the database: `reserve`/`release` then join the caller's transaction `trx`. */
  readonly inDatabase: boolean;
  get(shopId: string, period: string): Promise<number | null>;
  reserve(shopId: string, period: string, cap: number, trx?: Db): Promise<'ok' | 'over' | 'unavailable'>;
  release(shopId: string, period: string, trx?: Db): Promise<void>;
  set(shopId: string, period: string, value: number): Promise<void>;
}

export function createDbTestUsageCounter(db: Db, clock: Clock): TestUsageCounter {
  return {
    inDatabase: true,
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

const RESERVE = `local v = redis.call('INCR', KEYS[1])
if v == 1 then redis.call('EXPIRE', KEYS[1], 5356800) end
if v > tonumber(ARGV[1]) then redis.call('DECR', KEYS[1]) return 0 end
return 1`;

export function createRedisTestUsageCounter(redis: Redis): TestUsageCounter {
  const key = (shopId: string, period: string) => `slipcheck:test-usage:${shopId}:${period}`;
  return {
    inDatabase: false,
    async get(shopId, period) {
      try {
        return Number((await redis.get(key(shopId, period))) ?? 0);
      } catch {
        return null;
      }
    },
    async reserve(shopId, period, cap) {
      try {
        return (await redis.eval(RESERVE, 1, key(shopId, period), cap)) === 1 ? 'ok' : 'over';
      } catch {
        return 'unavailable';
      }
    },
    async release(shopId, period) {
      try {
        await redis.decr(key(shopId, period));
      } catch {
        /* counted high by one: errs in the shop's favour of safety */
      }
    },
    async set(shopId, period, value) {
      await redis.set(key(shopId, period), String(value), 'EX', 5356800);
    },
  };
}
