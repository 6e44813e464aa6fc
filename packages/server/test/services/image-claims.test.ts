import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createImageClaims, type ClaimKey } from '../../src/modules/verification/image-claims.js';
import { createServiceHarness, DB_KINDS, pgMissing, seedShop, skipNote, type ServiceHarness } from '../helpers/harness.js';

// The image claims built by their factory on a real database, without the verify pipeline: the writes
// of a check in flight (mark, complete, release) touch the claim only while it is still the caller's.
// The pipeline's use of them (replays, crashes, takeovers) is test/verify/.
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`image claims [${kind}]${skipNote(kind)}`, () => {
    let h: ServiceHarness;
    let t = Date.parse('2026-11-26T03:00:00Z');
    const claims = () =>
      createImageClaims({ db: h.c.db, now: () => new Date(t), windowMs: 3_600_000, inFlightTakeoverMs: 60_000, waitMs: 0, leaseMs: 1000 });
    beforeAll(async () => {
      h = await createServiceHarness(kind);
    });
    afterAll(async () => h.close());

    const own = async (hash: string): Promise<ClaimKey & { shopId: string }> => {
      const s = await seedShop(h);
      expect(await claims().claim(s.shop.id, 'live', hash)).toEqual({ kind: 'vacant' });
      const k = { shopId: s.shop.id, scope: 'live', hash, token: `token-${hash}` };
      expect(await h.c.db.transaction().execute((trx) => claims().insert(trx, k, null))).toBe(true);
      return k;
    };
    const row = (k: ClaimKey) =>
      h.c.db.selectFrom('image_claims').selectAll().where('shop_id', '=', k.shopId).where('image_hash', '=', k.hash).executeTakeFirst();
    const inTrx = <T>(fn: (trx: typeof h.c.db) => Promise<T>) => h.c.db.transaction().execute(fn);

    it('a new image for a caller that writes its own claim: vacant without a write, then claimed once with its unit', async () => {
      const s = await seedShop(h);
      const k: ClaimKey = { shopId: s.shop.id, scope: 'live', hash: 'v1', token: 'token-first' };
      expect(await claims().claim(k.shopId, 'live', 'v1')).toEqual({ kind: 'vacant' });
      expect(await row(k)).toBeUndefined();
      expect(await inTrx((trx) => claims().insert(trx, k, { pool: 'live', period: '2026-11' }))).toBe(true);
      expect(await row(k)).toMatchObject({ owner: 'token-first', reserved_pool: 'live', reserved_period: '2026-11', transaction_id: null });
      // A second check that read "vacant" too loses the insert and changes nothing (it rolls back its unit).
      const late = { ...k, token: 'token-late' };
      expect(await inTrx((trx) => claims().insert(trx, late, { pool: 'test', period: '2026-11' }))).toBe(false);
      expect(await row(k)).toMatchObject({ owner: 'token-first', reserved_pool: 'live' });
      // The winner's claim is an ordinary in-flight claim from then on.
      expect(await inTrx((trx) => claims().complete(trx, k, 'txn_v1'))).toBe(true);
      expect(await claims().claim(k.shopId, 'live', 'v1')).toEqual({
        kind: 'cached',
        transactionId: 'txn_v1',
        replayableUntil: t + 3_600_000,
      });
    });

    it('the owner marks its unit and completes the claim; a replay then answers the record', async () => {
      const k = await own('a1');
      expect(await inTrx((trx) => claims().markReserved(trx, k, { pool: 'live', period: '2026-11' }))).toBe(true);
      expect(await row(k)).toMatchObject({ reserved_pool: 'live', reserved_period: '2026-11', transaction_id: null });
      expect(await inTrx((trx) => claims().complete(trx, k, 'txn_1'))).toBe(true);
      expect(await row(k)).toMatchObject({ reserved_pool: null, reserved_period: null, transaction_id: 'txn_1' });
      // Replayable for the window from when the claim was written (here, now).
      expect(await claims().claim(k.shopId, 'live', 'a1')).toEqual({
        kind: 'cached',
        transactionId: 'txn_1',
        replayableUntil: t + 3_600_000,
      });
    });

    it('a completed claim is no longer in flight: mark, complete and release answer false and change nothing', async () => {
      const k = await own('a2');
      await inTrx((trx) => claims().complete(trx, k, 'txn_2'));
      expect(await inTrx((trx) => claims().markReserved(trx, k, { pool: 'test', period: '2026-11' }))).toBe(false);
      expect(await inTrx((trx) => claims().complete(trx, k, 'txn_other'))).toBe(false);
      expect(await inTrx((trx) => claims().release(trx, k))).toBe(false);
      expect(await row(k)).toMatchObject({ transaction_id: 'txn_2', reserved_pool: null });
    });

    it('another token (a check that lost its claim) cannot mark, complete or release it', async () => {
      const k = await own('a3');
      const stranger = { ...k, token: 'not-the-owner' };
      expect(await inTrx((trx) => claims().markReserved(trx, stranger, { pool: 'live', period: '2026-11' }))).toBe(false);
      expect(await inTrx((trx) => claims().complete(trx, stranger, 'txn_3'))).toBe(false);
      expect(await inTrx((trx) => claims().release(trx, stranger))).toBe(false);
      expect(await row(k)).toMatchObject({ owner: k.token, transaction_id: null, reserved_pool: null });
    });

    it('the owner releases a claim with the unit it marked; an orphan nobody renews is taken over with its unit', async () => {
      const k = await own('a4');
      await inTrx((trx) => claims().markReserved(trx, k, { pool: 'test', period: '2026-11' }));
      expect(await inTrx((trx) => claims().release(trx, k))).toEqual({ pool: 'test', period: '2026-11' });
      expect(await row(k)).toBeUndefined();

      const o = await own('a5');
      await inTrx((trx) => claims().markReserved(trx, o, { pool: 'live', period: '2026-11' }));
      expect(await claims().orphans()).not.toContainEqual(o);
      t += 1001; // just over one lease without a renewal
      expect(await claims().orphans()).toContainEqual(o);
      const next = await claims().claim(o.shopId, 'live', 'a5');
      expect(next).toMatchObject({ kind: 'owner', inherited: { pool: 'live', period: '2026-11' } });
      expect(await inTrx((trx) => claims().complete(trx, o, 'txn_dead'))).toBe(false); // the dead owner's token no longer matches
    });
  });
}
