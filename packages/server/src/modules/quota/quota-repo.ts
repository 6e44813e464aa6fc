import { preparedQuery, type Db } from '../../db/db.js';
import { deleteShopRows, type ShopPurge } from '../../db/shop-rows.js';

/**
 * Data access of the quota module: the only place that names `quota_usage` (one row per shop and
 * period: `used` for the live pool, `test_used` for the test cap when it is counted in the database).
 * Every function takes the handle to run on, so a caller's transaction can carry it.
 */

// Hot statements (every verify and every authenticated answer): SQL built once, see preparedQuery.
const usedQuery = preparedQuery((db: Db, shopId: string, period: string) =>
  db.selectFrom('quota_usage').select('used').where('shop_id', '=', shopId).where('period', '=', period),
);
// The conditional update is the whole exactly-k rule: the database lets k increments through.
// RETURNING gives the value our own increment made: the caller answers with it instead of reading
// the counter again, and exactly one reservation sees each value (threshold alerts rely on that).
const takeQuery = preparedQuery((db: Db, shopId: string, period: string, hardLimit: number, now: string) =>
  db
    .updateTable('quota_usage')
    .set((eb) => ({ used: eb('used', '+', 1), updated_at: now }))
    .where('shop_id', '=', shopId)
    .where('period', '=', period)
    .where('used', '<', hardLimit)
    .returning('used'),
);

export const quotaRepo = {
  async ensureRow(db: Db, shopId: string, period: string, now: string): Promise<void> {
    await db
      .insertInto('quota_usage')
      .values({ shop_id: shopId, period, used: 0, test_used: 0, updated_at: now })
      .onConflict((oc) => oc.columns(['shop_id', 'period']).doNothing())
      .execute();
  },

  /** Live units used in the period (0 before the first check). */
  async used(db: Db, shopId: string, period: string): Promise<number> {
    const [r] = await usedQuery(db, shopId, period);
    return r?.used ?? 0;
  },
  /** One live unit if fewer than `hardLimit` are used: the counter after the take, undefined when used up or no row yet. */
  async takeLive(db: Db, shopId: string, period: string, hardLimit: number, now: string): Promise<number | undefined> {
    const used = (await takeQuery(db, shopId, period, hardLimit, now))[0]?.used;
    return used === undefined ? undefined : Number(used);
  },
  /** Live units used in the periods from `from` up to, not including, `before` ('YYYY-MM' sorts as text). */
  async usedBetween(db: Db, shopId: string, from: string, before: string): Promise<number> {
    const r = await db
      .selectFrom('quota_usage')
      .select((eb) => eb.fn.sum<number | string | null>('used').as('used'))
      .where('shop_id', '=', shopId)
      .where('period', '>=', from)
      .where('period', '<', before)
      .executeTakeFirst();
    return Number(r?.used ?? 0);
  },
  async giveBackLive(db: Db, shopId: string, period: string): Promise<void> {
    await db
      .updateTable('quota_usage')
      .set((eb) => ({ used: eb('used', '-', 1) }))
      .where('shop_id', '=', shopId)
      .where('period', '=', period)
      .where('used', '>', 0)
      .execute();
  },
  /** Counted unconditionally (the row must exist). */
  async chargeLive(db: Db, shopId: string, period: string, now: string): Promise<void> {
    await db
      .updateTable('quota_usage')
      .set((eb) => ({ used: eb('used', '+', 1), updated_at: now }))
      .where('shop_id', '=', shopId)
      .where('period', '=', period)
      .execute();
  },
  async setLive(db: Db, shopId: string, period: string, value: number, now: string): Promise<void> {
    await db
      .updateTable('quota_usage')
      .set({ used: value, updated_at: now })
      .where('shop_id', '=', shopId)
      .where('period', '=', period)
      .execute();
  },

  async testUsed(db: Db, shopId: string, period: string): Promise<number> {
    const r = await db
      .selectFrom('quota_usage')
      .select('test_used')
      .where('shop_id', '=', shopId)
      .where('period', '=', period)
      .executeTakeFirst();
    return r?.test_used ?? 0;
  },
  /** One test call if fewer than `cap` are used (the row must exist); false when the cap is reached. */
  async takeTest(db: Db, shopId: string, period: string, cap: number, now: string): Promise<boolean> {
    const r = await db
      .updateTable('quota_usage')
      .set((eb) => ({ test_used: eb('test_used', '+', 1), updated_at: now }))
      .where('shop_id', '=', shopId)
      .where('period', '=', period)
      .where('test_used', '<', cap)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  },
  async giveBackTest(db: Db, shopId: string, period: string): Promise<void> {
    await db
      .updateTable('quota_usage')
      .set((eb) => ({ test_used: eb('test_used', '-', 1) }))
      .where('shop_id', '=', shopId)
      .where('period', '=', period)
      .where('test_used', '>', 0)
      .execute();
  },
  /** Counted unconditionally (the row must exist). */
  async chargeTest(db: Db, shopId: string, period: string): Promise<void> {
    await db
      .updateTable('quota_usage')
      .set((eb) => ({ test_used: eb('test_used', '+', 1) }))
      .where('shop_id', '=', shopId)
      .where('period', '=', period)
      .execute();
  },
  async setTest(db: Db, shopId: string, period: string, value: number, now: string): Promise<void> {
    await db
      .updateTable('quota_usage')
      .set({ test_used: value, updated_at: now })
      .where('shop_id', '=', shopId)
      .where('period', '=', period)
      .execute();
  },
};

/** Purge of an erased shop (housekeeping, composed in container.ts): this module's rows of the shop. */
export const purgeQuotaOfShop: ShopPurge = (trx, shopId) => deleteShopRows(trx, shopId, ['quota_usage']);
