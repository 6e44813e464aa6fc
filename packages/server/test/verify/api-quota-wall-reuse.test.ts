import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { createBankHarness, NO_RATE_LIMITS, postVerify } from '../helpers/bank-harness.js';
import type { startSandbox } from '../helpers/sandbox.js';

// At the quota wall the API answered a re-used slip with the plain 402: a POS that shows "quota used up,
// confirm by hand" sent the cashier to the bank app, where the first payment's money was, and the goods
// went out twice. The 402 stays (the contract: never a 200 past the pool), with its code and quota; its
// message says the transfer was already verified, and `firstUse` names that record, as on the dashboard.
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`API: a re-used slip at the quota wall [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let bank: Awaited<ReturnType<typeof startSandbox>>;
    let base: string;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ h, bank, base, close } = await createBankHarness(kind, NO_RATE_LIMITS, { listen: true }));
    });
    afterAll(async () => {
      await close();
    });

    it('402 with the first use of a transfer this key environment credited; nothing charged, asked or recorded', async () => {
      const shop = await seedShop(h);
      const t = await bank.register({ amount: 610.25 });
      const first = await postVerify(base, shop.auth, await bank.slip(t.transRef));
      expect(first.body.data).toMatchObject({ status: 'SUCCESS', amount: 610.25 });
      await h.c.quota.adjust(shop.shop.id, { used: 510 }, 'test'); // STARTER: 500 + free buffer 10
      const calls = bank.stats().checkerCalls;
      const count = async () => (await h.c.db.selectFrom('transactions').select('id').where('shop_id', '=', shop.shop.id).execute()).length;

      const again = await postVerify(base, shop.auth, await bank.slip(t.transRef, 'jpeg70', 'jpg'));
      expect(again.status).toBe(402);
      expect(again.body).toMatchObject({
        success: false,
        code: 'QUOTA_EXCEEDED',
        reason: 'MONTHLY_QUOTA',
        quota: { used: 510, limit: 500, remaining: 0 },
        firstUse: { transactionId: first.body.data.id, amount: 610.25, createdAt: first.body.data.createdAt },
      });
      const bkk = new Date(Date.parse(first.body.data.createdAt) + 7 * 3_600_000).toISOString();
      expect(again.body.message).toContain('quota');
      expect(again.body.message).toContain(
        `already verified successfully for this shop at ${bkk.slice(0, 10)} ${bkk.slice(11, 16)} (UTC+07:00)`,
      );
      expect(again.body.message).toContain(first.body.data.id);

      // A transfer the shop has not credited meets the wall as before.
      const fresh = await postVerify(base, shop.auth, await bank.slip((await bank.register()).transRef));
      expect(fresh.status).toBe(402);
      expect(fresh.body).not.toHaveProperty('firstUse');
      expect(fresh.body.message).not.toContain('already verified');

      expect(await count()).toBe(1);
      expect(bank.stats().checkerCalls).toBe(calls);
      expect((await h.c.db.selectFrom('quota_usage').select('used').where('shop_id', '=', shop.shop.id).executeTakeFirst())?.used).toBe(
        510,
      );
    });

    it("a test key's 402 names only a test-key SUCCESS: a live SUCCESS is another environment", async () => {
      const live = await seedShop(h);
      const test = await h.c.apiKeys.create(live.shop.id, { environment: 'test', scopes: 'verify,read' }, 'test');
      const testAuth = { authorization: `Bearer ${test.key}` };
      const t = await bank.register({ amount: 99 });
      expect((await postVerify(base, live.auth, await bank.slip(t.transRef))).body.data.status).toBe('SUCCESS');
      await h.c.quota.adjust(live.shop.id, { testUsed: 200 }, 'test');
      const over = await postVerify(base, testAuth, await bank.slip(t.transRef, 'jpeg70', 'jpg'));
      expect(over.status).toBe(402);
      expect(over.body).toMatchObject({ code: 'TEST_QUOTA_EXCEEDED' });
      expect(over.body).not.toHaveProperty('firstUse');
    });
  });
}
