import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { createBankHarness, NO_RATE_LIMITS, postVerify } from '../helpers/bank-harness.js';
import type { startSandbox } from '../helpers/sandbox.js';

// Two shops that receive into the same bank account (two branches of one business, each with its own
// subscription) both answered SUCCESS for one slip: the customer paid once and collected twice. A
// transfer reaches one account once, so it settles one order across the whole service, not once per
// shop. The second shop's answer must not say which shop had it first.

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`one transfer, two shops on the same account [${kind}]${skipNote(kind)}`, () => {
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

    const slip = async (amount: number) => bank.slip((await bank.register({ amount })).transRef);
    const used = async (shopId: string) =>
      (await h.c.db.selectFrom('quota_usage').select('used').where('shop_id', '=', shopId).executeTakeFirst())?.used ?? 0;

    it('the second branch is told DUPLICATE, with the first time but not the first shop', async () => {
      const a = await seedShop(h, { name: 'สาขาสยาม' });
      const b = await seedShop(h, { name: 'สาขาอารีย์' });
      const img = await slip(420);
      const first = await postVerify(base, a.auth, img);
      expect(first.body.data).toMatchObject({ status: 'SUCCESS', verified: true });

      const second = await postVerify(base, b.auth, img);
      expect(second.status).toBe(200);
      expect(second.body.data).toMatchObject({
        status: 'DUPLICATE',
        verified: false,
        duplicate: true,
        errorCode: 'DUPLICATE',
        transRef: first.body.data.transRef,
        amount: 420,
      });
      const bkk = new Date(Date.parse(first.body.data.createdAt) + 7 * 3_600_000).toISOString();
      expect(second.body.data.errorMessage).toContain(`${bkk.slice(0, 10)} ${bkk.slice(11, 16)} (UTC+07:00)`);
      expect(second.body.data.errorMessage).toContain('another shop that receives into the same account');
      const text = JSON.stringify(second.body);
      for (const secret of [a.shop.id, 'สาขาสยาม', first.body.data.id]) expect(text).not.toContain(secret);
      // The bank was asked whether the transfer reached this shop's account: that check is charged.
      expect(await used(b.shop.id)).toBe(1);

      // Sent again to the second branch for another order: still not paid.
      const again = await postVerify(base, b.auth, img);
      expect(again.body.data).toMatchObject({ status: 'DUPLICATE', verified: false });
      // The first branch's own resend is its replay, unchanged.
      const replay = await postVerify(base, a.auth, img);
      expect(replay.body.data).toMatchObject({ status: 'SUCCESS', cached: true, id: first.body.data.id });
    });

    it('the second branch asking again about the same transfer is answered from its own record: no new charge', async () => {
      const a = await seedShop(h);
      const b = await seedShop(h);
      const ref = (await bank.register({ amount: 260 })).transRef;
      const img = await bank.slip(ref);
      expect((await postVerify(base, a.auth, img)).body.data.status).toBe('SUCCESS');
      const second = await postVerify(base, b.auth, img);
      expect(second.body.data).toMatchObject({ status: 'DUPLICATE' });
      expect(await used(b.shop.id)).toBe(1);
      const calls = bank.stats().checkerCalls;

      // The same transfer again, as a JPEG (other bytes: no replay) and for an order with an amount:
      // the bank already said this shop's account received it, and that another shop verified it first.
      const resend = await fetch(`${base}/api/v1/verify?amount=260.00`, {
        method: 'POST',
        headers: { ...b.auth, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(await bank.slip(ref, 'clean', 'jpg')),
      });
      const body = (await resend.json()) as { data: Record<string, unknown> };
      expect(body.data).toMatchObject({ status: 'DUPLICATE', duplicate: true, cached: false, amount: 260 });
      expect(body.data.errorMessage).toContain('another shop');
      expect(body.data.errorMessage).toBe(second.body.data.errorMessage);
      expect(bank.stats().checkerCalls).toBe(calls);
      expect(await used(b.shop.id)).toBe(1);
      expect(JSON.stringify(body)).not.toContain(a.shop.id);

      // Once that SUCCESS is gone (its shop erased), nothing stands in the way: the bank is asked again.
      await h.c.db.deleteFrom('transactions').where('shop_id', '=', a.shop.id).execute();
      const after = await postVerify(base, b.auth, await bank.slip(ref, 'clean', 'jpg'));
      expect(after.body.data).toMatchObject({ status: 'SUCCESS', duplicate: false });
      expect(bank.stats().checkerCalls).toBe(calls + 1);
    });

    it('both branches at the same moment: exactly one SUCCESS', async () => {
      const a = await seedShop(h);
      const b = await seedShop(h);
      const img = await slip(95.5);
      const answers = await Promise.all([postVerify(base, a.auth, img), postVerify(base, b.auth, img)]);
      const statuses = answers.map((r) => r.body.data.status).sort();
      expect(statuses).toEqual(['DUPLICATE', 'SUCCESS']);
    });

    it('a shop whose account did not receive the transfer learns nothing of it: RECEIVER_MISMATCH as before', async () => {
      const a = await seedShop(h);
      const other = await seedShop(h, { payee: false });
      await h.c.payees.add(other.shop.id, { bankCode: '014', accountNumber: '7771234567', holder: 'ร้านอื่น จำกัด' }, 'test');
      const img = await slip(300);
      expect((await postVerify(base, a.auth, img)).body.data.status).toBe('SUCCESS');
      const r = await postVerify(base, other.auth, img);
      expect(r.body.data).toMatchObject({ status: 'RECEIVER_MISMATCH', duplicate: false });
    });

    // A slip shows only part of the receiving number (xxx-x-x6660-x): another shop's account with the
    // same visible digits matches it too. That shop was told "another shop that receives into the same
    // account", which was false and told it that it shared its account with a stranger.
    it('a shop whose different account only shares the visible digits is not told it shares the account', async () => {
      const a = await seedShop(h);
      const b = await seedShop(h, { payee: false });
      await h.c.payees.add(b.shop.id, { bankCode: '004', accountNumber: '5555566609', holder: 'ร้านอื่น จำกัด' }, 'test');
      const ref = (await bank.register({ amount: 180 })).transRef;
      expect((await postVerify(base, a.auth, await bank.slip(ref))).body.data.status).toBe('SUCCESS');

      const second = await postVerify(base, b.auth, await bank.slip(ref));
      // Still not paid (the transfer has its SUCCESS), and charged: the bank was asked.
      expect(second.body.data).toMatchObject({ status: 'DUPLICATE', verified: false, errorCode: 'DUPLICATE' });
      expect(second.body.data.errorMessage).toContain('may not have reached your account');
      expect(second.body.data.errorMessage).not.toContain('same account');
      expect(await used(b.shop.id)).toBe(1);
      // Asked again (another picture of it, so no replay): the same words, from its own record, free.
      const again = await postVerify(base, b.auth, await bank.slip(ref, 'clean', 'jpg'));
      expect(again.body.data.errorMessage).toBe(second.body.data.errorMessage);
      expect(await used(b.shop.id)).toBe(1);
      expect(JSON.stringify([second.body, again.body])).not.toContain(a.shop.id);
    });

    // What the wording above rests on: one account in two shops is the same account, a PromptPay id
    // whichever bank it was entered under; another number or bank is not.
    it('two shops hold the same account exactly when the bank and number (or the PromptPay id) agree', async () => {
      const [a, b] = [await seedShop(h, { payee: false }), await seedShop(h, { payee: false })];
      const add = async (shopId: string, p: { bankCode: string; accountNumber: string; kind?: string; proxyType?: string }) =>
        (await h.c.payees.add(shopId, { holder: 'ร้าน', ...p }, 'test')).id;
      const same = async (x: string, y: string) => h.c.payees.sameAccount({ shopId: a.shop.id, id: x }, { shopId: b.shop.id, id: y });
      const bankA = await add(a.shop.id, { bankCode: '004', accountNumber: '1234566609' });
      expect(await same(bankA, await add(b.shop.id, { bankCode: '004', accountNumber: '1234566609' }))).toBe(true);
      expect(await same(bankA, await add(b.shop.id, { bankCode: '004', accountNumber: '5555566609' }))).toBe(false);
      expect(await same(bankA, await add(b.shop.id, { bankCode: '014', accountNumber: '1234566609' }))).toBe(false);
      const ppA = await add(a.shop.id, { kind: 'PROMPTPAY', proxyType: 'PHONE', bankCode: '004', accountNumber: '0812345678' });
      expect(
        await same(ppA, await add(b.shop.id, { kind: 'PROMPTPAY', proxyType: 'PHONE', bankCode: '014', accountNumber: '0812345678' })),
      ).toBe(true);
      // Another shop's id read with this shop's id is no account: unknown, not "different".
      expect(await h.c.payees.sameAccount({ shopId: b.shop.id, id: bankA }, { shopId: b.shop.id, id: bankA })).toBeNull();
    });

    it('a test-key check in one branch does not make a live check in the other a DUPLICATE', async () => {
      const a = await seedShop(h, { env: 'test' });
      const b = await seedShop(h);
      const img = await slip(150);
      expect((await postVerify(base, a.auth, img)).body.data).toMatchObject({ status: 'SUCCESS', environment: 'test' });
      expect((await postVerify(base, b.auth, img)).body.data).toMatchObject({ status: 'SUCCESS', environment: 'live' });
    });
  });
}
