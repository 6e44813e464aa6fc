import type { Redis } from 'ioredis';
import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';

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

export async function ensureUsageRow(db: Db, shopId: string, period: string, now: string) {
  await db
    .insertInto('quota_usage')
    .values({ shop_id: shopId, period, used: 0, test_used: 0, updated_at: now })
    .onConflict((oc) => oc.columns(['shop_id', 'period']).doNothing())
    .execute();
}

export function createDbTestUsageCounter(db: Db, clock: Clock): TestUsageCounter {
  return {
    inDatabase: true,
    async get(shopId, period) {
      const r = await db
        .selectFrom('quota_usage')
        .select('test_used')
        .where('shop_id', '=', shopId)
        .where('period', '=', period)
        .executeTakeFirst();
      return r?.test_used ?? 0;
    },
    async reserve(shopId, period, cap, trx = db) {
      const now = clock.now().toISOString();
      await ensureUsageRow(trx, shopId, period, now);
      const r = await trx
        .updateTable('quota_usage')
        .set((eb) => ({ test_used: eb('test_used', '+', 1), updated_at: now }))
        .where('shop_id', '=', shopId)
        .where('period', '=', period)
        .where('test_used', '<', cap)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1 ? 'ok' : 'over';
    },
    async release(shopId, period, trx = db) {
      await trx
        .updateTable('quota_usage')
        .set((eb) => ({ test_used: eb('test_used', '-', 1) }))
        .where('shop_id', '=', shopId)
        .where('period', '=', period)
        .where('test_used', '>', 0)
        .execute();
    },
    async set(shopId, period, value) {
      const now = clock.now().toISOString();
      await ensureUsageRow(db, shopId, period, now);
      await db
        .updateTable('quota_usage')
        .set({ test_used: value, updated_at: now })
        .where('shop_id', '=', shopId)
        .where('period', '=', period)
        .execute();
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
