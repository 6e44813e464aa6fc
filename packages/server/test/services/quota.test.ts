import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.js';
import { createServiceHarness, DB_KINDS, msAfter, pgMissing, seedShop, skipNote, type ServiceHarness } from '../helpers/harness.js';

// The quota service on a real database, without HTTP: periods in Asia/Bangkok, the live pool's hard
// limit and the test keys' own cap. The HTTP shape of the quota (the resource, its four headers) is
// test/foundation/read-endpoints.test.ts.
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`quota periods and pools [${kind}]${skipNote(kind)}`, () => {
    const clock = fixedClock('2026-11-30T16:58:00Z'); // 23:58 in Bangkok
    let h: ServiceHarness;
    beforeAll(async () => {
      h = await createServiceHarness(kind, { TEST_QUOTA_LIMIT: '2' }, { clock });
    });
    afterAll(async () => h.close());

    const shopAndPlan = async (s: Awaited<ReturnType<typeof seedShop>>) => {
      const shop = await h.c.shops.get(s.shop.id);
      return { shop, plan: await h.c.plans.get(shop.planCode) };
    };
    const usedIn = async (shopId: string, period: string) =>
      (await h.c.db.selectFrom('quota_usage').select('used').where('shop_id', '=', shopId).where('period', '=', period).executeTakeFirst())
        ?.used;

    // Moved from test/foundation/auth-and-limits.test.ts (it started a whole app with its own clock).
    it('counts per period and starts the new month at zero at Bangkok midnight', async () => {
      const s = await seedShop(h);
      const { shop, plan } = await shopAndPlan(s);
      await h.c.quota.adjust(s.shop.id, { used: 7 }, 'test');
      expect(await h.c.quota.snapshot(shop, plan)).toMatchObject({ used: 7, periodMonth: '2026-11', daysUntilReset: 1 });
      clock.advance(3 * 60_000); // 00:01 on 1 December in Bangkok, still 30 November in UTC
      expect(await h.c.quota.snapshot(shop, plan)).toMatchObject({ used: 0, remaining: 500, periodMonth: '2026-12', daysUntilReset: 31 });
      // A unit taken now counts in December; November keeps its 7.
      expect(await h.c.quota.reserve(shop, plan, 'live')).toMatchObject({ shopId: s.shop.id, period: '2026-12', pool: 'live', used: 1 });
      expect(await usedIn(s.shop.id, '2026-11')).toBe(7);
      expect(await usedIn(s.shop.id, '2026-12')).toBe(1);
    });

    it('the live pool stops at the plan limit plus its free buffer with QUOTA_EXCEEDED, and a unit given back can be taken again', async () => {
      const s = await seedShop(h); // STARTER: 500 a month and a free buffer of 10, no overage
      const { shop, plan } = await shopAndPlan(s);
      await h.c.quota.adjust(s.shop.id, { used: 509 }, 'test');
      const last = await h.c.quota.reserve(shop, plan, 'live');
      expect(last.used).toBe(510);
      await expect(h.c.quota.reserve(shop, plan, 'live')).rejects.toMatchObject({
        code: 'QUOTA_EXCEEDED',
        statusCode: 402,
        extra: { reason: 'MONTHLY_QUOTA', quota: { used: 510, limit: 500, remaining: 0 } },
      });
      await h.c.db.transaction().execute((trx) => h.c.quota.releaseIn(trx, last));
      expect(await h.c.quota.reserve(shop, plan, 'live')).toMatchObject({ used: 510 });
      expect((await h.c.quota.snapshot(shop, plan)).overage).toBe(0); // the free buffer is not overage
    });

    it('what `first` wrote in the reservation transaction is kept with a unit and rolled back with a refusal, in both pools', async () => {
      const s = await seedShop(h);
      const { shop, plan } = await shopAndPlan(s);
      await h.c.quota.adjust(s.shop.id, { used: 509, testUsed: 1 }, 'test'); // one unit left in each pool (test cap 2)
      const claimed = (hash: string) =>
        h.c.db
          .selectFrom('image_claims')
          .select(['reserved_pool'])
          .where('shop_id', '=', s.shop.id)
          .where('image_hash', '=', hash)
          .executeTakeFirst();
      const writeClaim = (hash: string) => async (trx: typeof h.c.db, unit: { pool: 'live' | 'test'; period: string }) => {
        await trx
          .insertInto('image_claims')
          .values({
            shop_id: s.shop.id,
            scope: unit.pool,
            image_hash: hash,
            transaction_id: null,
            claimed_at: clock.now().toISOString(),
            owner: 'token',
            lease_until: clock.now().toISOString(),
            reserved_pool: unit.pool,
            reserved_period: unit.period,
          })
          .execute();
      };
      for (const pool of ['live', 'test'] as const) {
        await h.c.quota.reserve(shop, plan, pool, undefined, writeClaim(`${pool}-kept`));
        expect(await claimed(`${pool}-kept`)).toEqual({ reserved_pool: pool });
        await expect(h.c.quota.reserve(shop, plan, pool, undefined, writeClaim(`${pool}-refused`))).rejects.toMatchObject({
          statusCode: 402,
        });
        expect(await claimed(`${pool}-refused`)).toBeUndefined();
      }
    });

    it('test keys draw on their own cap (TEST_QUOTA_LIMIT) and never on the live pool', async () => {
      const s = await seedShop(h);
      const { shop, plan } = await shopAndPlan(s);
      const first = await h.c.quota.reserve(shop, plan, 'test');
      expect(first).toMatchObject({ pool: 'test' });
      await h.c.quota.reserve(shop, plan, 'test');
      await expect(h.c.quota.reserve(shop, plan, 'test')).rejects.toMatchObject({
        code: 'TEST_QUOTA_EXCEEDED',
        statusCode: 402,
        extra: { reason: 'TEST_CAP', quota: { used: 2, limit: 2, remaining: 0 } },
      });
      expect(await h.c.quota.testSnapshot(s.shop.id)).toEqual({ used: 2, limit: 2, remaining: 0 });
      expect((await h.c.quota.snapshot(shop, plan)).used).toBe(0);
      await h.c.db.transaction().execute((trx) => h.c.quota.releaseIn(trx, first));
      expect(await h.c.quota.testSnapshot(s.shop.id)).toEqual({ used: 1, limit: 2, remaining: 1 });
    });

    it("the counter a replay from memory reports (recentSnapshot): this node's own writes show at once, every one of them", async () => {
      const s = await seedShop(h);
      const { shop, plan } = await shopAndPlan(s);
      const recent = async () => (await h.c.quota.recentSnapshot(shop, plan)).used;
      const period = h.c.quota.period().periodMonth; // this suite's clock is past a month's end by now
      const behindItsBack = (used: number) =>
        h.c.db.updateTable('quota_usage').set({ used }).where('shop_id', '=', s.shop.id).where('period', '=', period).execute();
      await h.c.quota.adjust(s.shop.id, { used: 3 }, 'test');
      let wroteAt = performance.now(); // after the node's write, which starts its second
      // Within a second of this node's write nothing is kept (the write's transaction may still be open):
      // a change behind the node's back shows at once.
      expect(await recent()).toBe(3);
      await behindItsBack(4);
      expect(await recent()).toBe(4);
      /** After the second, the node keeps a copy, and it is really used (a change behind its back does not show); then `write` shows at once. */
      const keptThen = async (used: number, write: () => Promise<unknown>, after: number) => {
        await msAfter(wroteAt, 1000);
        const keptAt = performance.now();
        expect(await recent()).toBe(used);
        await behindItsBack(used + 100);
        const copy = await recent();
        if (performance.now() - keptAt < 500) expect(copy).toBe(used);
        await behindItsBack(used);
        await write();
        wroteAt = performance.now();
        expect(await recent()).toBe(after);
      };
      const unit = { shopId: s.shop.id, period, pool: 'live' as const };
      await keptThen(4, () => h.c.quota.reserve(shop, plan, 'live'), 5);
      await keptThen(5, () => h.c.db.transaction().execute((trx) => h.c.quota.releaseIn(trx, unit)), 4);
      await keptThen(4, () => h.c.db.transaction().execute((trx) => h.c.quota.chargeIn(trx, unit)), 5);
      await keptThen(5, () => h.c.quota.adjust(s.shop.id, { used: 2 }, 'test'), 2);
    });
  });

  // The trial's 50 slips are for its 7 days, not per calendar month: a trial that crosses a month
  // used to start December with 50 more, and was told its quota "starts again next month".
  describe.skipIf(pgMissing(kind))(`a trial's pool spans its days, across a month [${kind}]${skipNote(kind)}`, () => {
    const clock = fixedClock('2026-11-28T05:00:00Z'); // 12:00 in Bangkok; the trial ends on 5 December
    let h: ServiceHarness;
    beforeAll(async () => {
      h = await createServiceHarness(kind, {}, { clock });
    });
    afterAll(async () => h.close());

    it('units used in November count in December, and the refusal says the trial’s slips are used up', async () => {
      const s = await seedShop(h, { plan: 'TRIAL' });
      const shop = await h.c.shops.get(s.shop.id);
      const plan = await h.c.plans.get(shop.planCode);
      await h.c.quota.adjust(s.shop.id, { used: 45 }, 'test');
      clock.advance(3 * 86_400_000); // 1 December in Bangkok, the trial's fourth day
      expect(await h.c.quota.snapshot(shop, plan)).toMatchObject({ used: 45, limit: 50, remaining: 5, periodMonth: '2026-12' });
      for (let i = 46; i <= 50; i++) expect(await h.c.quota.reserve(shop, plan, 'live')).toMatchObject({ period: '2026-12', used: i });
      await expect(h.c.quota.reserve(shop, plan, 'live')).rejects.toMatchObject({
        code: 'QUOTA_EXCEEDED',
        statusCode: 402,
        message: expect.stringMatching(/trial's 50 slips/),
        extra: { reason: 'TRIAL_QUOTA', quota: { used: 50, limit: 50, remaining: 0 } },
      });
      expect(await h.c.quota.recentSnapshot(shop, plan)).toMatchObject({ used: 50, remaining: 0 });
      // A paid plan chosen later counts December alone, as every month.
      const paid = await h.c.plans.get('STARTER');
      expect(await h.c.quota.snapshot({ ...shop, planCode: 'STARTER', trialEndsAt: null }, paid)).toMatchObject({ used: 5 });
    });
  });
}
