import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type Harness, pgMissing, skipNote } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { createDashHarness, signup, type Owner } from './dash-helpers.js';

// The quota wall stands before the decoder: at the wall the check screen said only "quota used up" to
// another picture of a transfer the shop had already credited, and staff, finding the first payment's
// money in the bank app, handed the goods over twice. The 402 stays; it names the transfer's first use.
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`dashboard: a re-used slip at the quota wall [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let bank: Awaited<ReturnType<typeof startSandbox>>;
    let a: Owner;
    let b: Owner;
    const verify = (o: Owner, image: Buffer) =>
      h.app.inject({ method: 'POST', url: '/api/dashboard/verify', headers: { ...o.auth, 'content-type': 'image/jpeg' }, payload: image });
    const addPayee = async (o: Owner) => {
      const r = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/payees',
        headers: o.auth,
        payload: { bankCode: '004', accountNumber: '1234566609', holder: 'บจก. ร้านกาแฟ ทดสอบ' },
      });
      expect(r.statusCode).toBe(201);
    };
    const records = async (o: Owner) =>
      (await h.c.db.selectFrom('transactions').select(['id', 'status']).where('shop_id', '=', o.shopId).execute()).map((r) => r.status);
    const used = async (o: Owner) => (await h.c.quota.snapshot(await h.c.shops.get(o.shopId), await h.c.plans.get('TRIAL'))).used;

    beforeAll(async () => {
      bank = await startSandbox();
      ({ h } = await createDashHarness(kind, { CHECKER: 'sandbox', CHECKER_URL: bank.url, DECODE_THREADS: '1' }));
      a = await signup(h, { shopName: 'ร้าน A' });
      b = await signup(h, { shopName: 'ร้าน B' });
      await addPayee(a);
      await addPayee(b);
    }, 60_000);
    afterAll(async () => {
      await h?.close();
      await bank?.close();
    });

    it('402 names the first use (id, amount, time) of a transfer this shop credited; nothing charged, asked or recorded', async () => {
      const t = await bank.register({ amount: 420.5 });
      const first = await verify(a, await bank.slip(t.transRef));
      expect(first.statusCode).toBe(200);
      expect(first.json().data).toMatchObject({ status: 'SUCCESS', amount: 420.5 });
      await h.c.quota.adjust(a.shopId, { used: 50 }, 'test');
      await h.c.quota.adjust(b.shopId, { used: 50 }, 'test');
      const checkerCalls = bank.stats().checkerCalls;

      const again = await verify(a, await bank.slip(t.transRef, 'jpeg70', 'jpg'));
      expect(again.statusCode).toBe(402);
      const body = again.json();
      expect(body).toMatchObject({ success: false, code: 'QUOTA_EXCEEDED', quota: { used: 50, limit: 50, remaining: 0 } });
      expect(body.firstUse).toEqual({ transactionId: first.json().data.id, amount: 420.5, createdAt: first.json().data.createdAt });

      // A transfer the shop has not credited meets the wall as before, and so does this one in another shop.
      const fresh = await verify(a, await bank.slip((await bank.register()).transRef));
      expect(fresh.statusCode).toBe(402);
      expect(fresh.json()).not.toHaveProperty('firstUse');
      const elsewhere = await verify(b, await bank.slip(t.transRef, 'camera12mp', 'jpg'));
      expect(elsewhere.statusCode).toBe(402);
      expect(elsewhere.json()).not.toHaveProperty('firstUse');

      expect(await records(a)).toEqual(['SUCCESS']);
      expect(await records(b)).toEqual([]);
      expect(await used(a)).toBe(50);
      expect(await used(b)).toBe(50);
      expect(bank.stats().checkerCalls).toBe(checkerCalls);
    });
  });
}
