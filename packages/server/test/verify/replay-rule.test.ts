import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { createBankHarness, NO_RATE_LIMITS } from '../helpers/bank-harness.js';
import { countRecords } from '../helpers/records.js';
import type { startSandbox } from '../helpers/sandbox.js';
import { signup, UA } from '../dashboard/dash-helpers.js';

// Issue 19, "one image, two orders": the exact file verified for order-1 (300 THB) and sent again for
// order-2 (500 THB) answered SUCCESS, verified: true, cached: true with order-1's record, so an
// integration crediting on `verified` shipped order-2 for free. A replay is an identical request
// (same image, amount and clientRef); the same image for another order is a DUPLICATE.

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`replay is an identical request [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let bank: Awaited<ReturnType<typeof startSandbox>>;
    let base: string;
    let close: () => Promise<void>;
    let s: Awaited<ReturnType<typeof seedShop>>;
    beforeAll(async () => {
      ({ h, bank, base, close } = await createBankHarness(kind, NO_RATE_LIMITS, { listen: true }));
      s = await seedShop(h);
    });
    afterAll(async () => {
      await close();
    });

    const verify = async (image: Buffer, query: string, auth = s.auth) => {
      const r = await fetch(`${base}/api/v1/verify${query}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(image),
      });
      const body = await r.json();
      expect(r.status, JSON.stringify(body)).toBe(200);
      return body.data;
    };
    /** Checker calls counted where they arrive: at the sandbox bank. */
    const calls = () => bank.stats().checkerCalls;
    const used = async () =>
      (await h.c.db.selectFrom('quota_usage').select('used').where('shop_id', '=', s.shop.id).executeTakeFirst())?.used ?? 0;
    const records = () => countRecords(h, s.shop.id);
    const slip = async (amount = 300) => bank.slip((await bank.register({ amount })).transRef);

    it('order-1 then order-2 with the same bytes: DUPLICATE, verified false, naming the first time; no checker call, not charged', async () => {
      const img = await slip(300);
      const first = await verify(img, '?clientRef=order-1&amount=300');
      expect(first).toMatchObject({ status: 'SUCCESS', verified: true, cached: false, clientRef: 'order-1' });
      const [c0, u0, n0] = [calls(), await used(), await records()];
      expect(u0).toBe(1);

      const second = await verify(img, '?clientRef=order-2&amount=500');
      expect(second).toMatchObject({
        status: 'DUPLICATE',
        verified: false,
        duplicate: true,
        cached: false,
        errorCode: 'DUPLICATE',
        clientRef: 'order-2',
        transRef: first.transRef,
      });
      expect(second.id).not.toBe(first.id);
      // People read it: the first check's time in the service's zone (Asia/Bangkok) with its offset, not
      // UTC ISO (which read as seven hours earlier than the shop's clock); createdAt stays machine-readable.
      const bkk = new Date(Date.parse(first.createdAt) + 7 * 3_600_000).toISOString();
      expect(second.errorMessage).toContain(`at ${bkk.slice(0, 10)} ${bkk.slice(11, 16)} (UTC+07:00)`);
      expect(second.errorMessage).not.toContain(first.createdAt);
      expect(first.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      // The payment it re-uses, from the first SUCCESS (the bank's data), not asked again: 300 THB, not order-2's 500.
      const bankData = ['amount', 'bankCode', 'senderName', 'senderAccount', 'receiverName', 'receiverAccount', 'transDate'] as const;
      expect(second.amount).toBe(300);
      for (const f of bankData) expect(second[f], f).toEqual(first[f]);
      expect(calls()).toBe(c0); // known locally: the checker is not asked
      expect(await used()).toBe(u0); // a locally found DUPLICATE costs nothing (DESIGN.md charging rule)
      expect(second.quota.used).toBe(u0);
      expect(await records()).toBe(n0 + 1);

      // Only the amount differs: a new verification too.
      const third = await verify(img, '?clientRef=order-1&amount=500');
      expect(third).toMatchObject({ status: 'DUPLICATE', verified: false, cached: false });

      // Identical retries answer their own first record again, cached; nothing asked, charged or written.
      const n1 = await records();
      const retry1 = await verify(img, '?clientRef=order-1&amount=300.00'); // 300 and 300.00 are one amount
      expect(retry1).toMatchObject({ id: first.id, status: 'SUCCESS', verified: true, cached: true, clientRef: 'order-1' });
      const retry2 = await verify(img, '?amount=500&clientRef=order-2');
      expect(retry2).toMatchObject({ id: second.id, status: 'DUPLICATE', verified: false, cached: true });
      expect(calls()).toBe(c0);
      expect(await used()).toBe(u0);
      expect(await records()).toBe(n1);
    });

    it('clientRef absent and present are different requests (absent counts as a value)', async () => {
      const img = await slip(120);
      const bare = await verify(img, '');
      expect(bare).toMatchObject({ status: 'SUCCESS', verified: true, cached: false, clientRef: null });
      const c0 = calls();
      const withRef = await verify(img, '?clientRef=order-3');
      expect(withRef).toMatchObject({ status: 'DUPLICATE', verified: false, cached: false, clientRef: 'order-3' });
      const withAmount = await verify(img, '?amount=120');
      expect(withAmount).toMatchObject({ status: 'DUPLICATE', verified: false, cached: false });
      const again = await verify(img, '');
      expect(again).toMatchObject({ id: bare.id, status: 'SUCCESS', cached: true });
      expect(calls()).toBe(c0);
    });

    it('a slip already checked in LINE or on the dashboard is DUPLICATE at the API, even with neither amount nor clientRef', async () => {
      // An API request with neither field was keyed by the image alone, like LINE and the dashboard, so a
      // slip the counter had accepted (goods handed over) and then uploaded to the shop's bot answered the
      // counter's record: SUCCESS, verified: true, duplicate: false. The bot's own database had never seen
      // that transRef, so following "Crediting an order safely" it credited a second order.
      for (const source of ['DASHBOARD', 'LINE'] as const) {
        const img = await slip(150);
        const counter = await h.c.verification.verifySlip({ shopId: s.shop.id, source, image: img });
        expect(counter.record).toMatchObject({ status: 'SUCCESS', source });
        const [c0, u0] = [calls(), await used()];
        const bot = await verify(img, '');
        expect(bot, source).toMatchObject({ status: 'DUPLICATE', verified: false, duplicate: true, cached: false, source: 'API' });
        expect(bot.id).not.toBe(counter.record.id);
        // Its own retry is a replay of its own answer; found locally, nothing asked or charged.
        expect(await verify(img, '')).toMatchObject({ id: bot.id, status: 'DUPLICATE', cached: true });
        expect([calls(), await used()]).toEqual([c0, u0]);
        // The human channels still see a resend there as a replay of their own record.
        const again = await h.c.verification.verifySlip({ shopId: s.shop.id, source, image: img });
        expect(again.record).toMatchObject({ id: counter.record.id, cached: true });
      }
      // The other way round: the API's own check, then the same bytes without fields again, is a replay.
      const img = await slip(160);
      const first = await verify(img, '');
      expect(first).toMatchObject({ status: 'SUCCESS', cached: false });
      expect(await verify(img, '')).toMatchObject({ id: first.id, status: 'SUCCESS', cached: true });
    });

    it("another integration of the same shop (its own API key) is never given this one's answer as a replay", async () => {
      // The POS and the shop's LINE bot integration each hold a key. Keyed without the API key, the bot's
      // check of a slip the POS had accepted (neither sending amount nor clientRef) came back as the POS's
      // SUCCESS, cached: the bot, which had never seen the transRef, credited a second order.
      const other = await h.c.apiKeys.create(s.shop.id, { environment: 'live', scopes: 'verify,read', name: 'bot' }, 'test');
      const bot = { authorization: `Bearer ${other.key}` };
      const img = await slip(175);
      const pos = await verify(img, '');
      expect(pos).toMatchObject({ status: 'SUCCESS', cached: false });
      const [c0, u0] = [calls(), await used()];
      const second = await verify(img, '', bot);
      expect(second).toMatchObject({ status: 'DUPLICATE', verified: false, duplicate: true, cached: false });
      // Each integration's own retry is still its own replay; nothing asked or charged for either.
      expect(await verify(img, '', bot)).toMatchObject({ id: second.id, status: 'DUPLICATE', cached: true });
      expect(await verify(img, '')).toMatchObject({ id: pos.id, status: 'SUCCESS', cached: true });
      expect([calls(), await used()]).toEqual([c0, u0]);
    });

    it('the dashboard (and mini-app) re-checks a slip with a corrected expected amount instead of replaying the mismatch', async () => {
      // The dashboard's key was the image alone even with an expected amount, so staff who typed 500 for
      // a 300 transfer and corrected it to 300 got the first AMOUNT_MISMATCH back as a replay: a good
      // payment refused at the counter.
      const img = await slip(300);
      const check = async (expectedAmountSatang?: number) =>
        (await h.c.verification.verifySlip({ shopId: s.shop.id, source: 'DASHBOARD', image: img, expectedAmountSatang })).record;
      const typo = await check(500_00);
      expect(typo).toMatchObject({ status: 'AMOUNT_MISMATCH', cached: false });
      const fixed = await check(300_00);
      expect(fixed).toMatchObject({ status: 'SUCCESS', verified: true, cached: false });
      // The same check again is a replay; the API's same amount is not the dashboard's request.
      expect(await check(300_00)).toMatchObject({ id: fixed.id, cached: true });
      expect(await verify(img, '?amount=300')).toMatchObject({ status: 'DUPLICATE', verified: false, cached: false });
    });

    it('an unverified first result is not a verified transfer: the corrected amount is checked', async () => {
      const img = await slip(300);
      const wrong = await verify(img, '?clientRef=order-4&amount=299.99');
      expect(wrong).toMatchObject({ status: 'AMOUNT_MISMATCH', verified: false });
      const right = await verify(img, '?clientRef=order-4&amount=300');
      expect(right).toMatchObject({ status: 'SUCCESS', verified: true, cached: false });
    });

    it('concurrent identical requests: one record, one charge, one checker call; two orders at once: one SUCCESS', async () => {
      const img = await slip(410);
      const [c0, u0, n0] = [calls(), await used(), await records()];
      const same = await Promise.all(Array.from({ length: 6 }, () => verify(img, '?clientRef=order-5&amount=410')));
      expect(new Set(same.map((r) => r.id)).size).toBe(1);
      expect(same.filter((r) => !r.cached)).toHaveLength(1);
      expect(calls() - c0).toBe(1);
      expect((await used()) - u0).toBe(1);
      expect((await records()) - n0).toBe(1);

      const img2 = await slip(410);
      const two = await Promise.all([verify(img2, '?clientRef=order-6'), verify(img2, '?clientRef=order-7')]);
      expect(two.map((r) => r.status).sort()).toEqual(['DUPLICATE', 'SUCCESS']);
    });

    it('the dashboard has no client reference: the same image with another expected amount is flagged, found locally (DUPLICATE)', async () => {
      const owner = await signup(h);
      await h.c.payees.add(owner.shopId, { bankCode: '004', accountNumber: '1234566609', holder: 'บจก. ร้านกาแฟ ทดสอบ' }, 'test');
      const img = await slip(300);
      const up = (q: string) =>
        h.app.inject({
          method: 'POST',
          url: `/api/dashboard/verify${q}`,
          headers: { ...owner.auth, 'user-agent': UA, 'content-type': 'image/png' },
          payload: img,
        });
      const first = (await up('?expectedAmount=300')).json().data;
      expect(first).toMatchObject({ status: 'SUCCESS', cached: false });
      const c0 = calls();
      // Another expected amount is another request (as at the API): the transfer's SUCCESS is found
      // locally, so nothing is asked or charged; the same amount again is the replay.
      const again = (await up('?expectedAmount=500')).json().data;
      expect(again).toMatchObject({ status: 'DUPLICATE', verified: false, cached: false });
      expect((await up('?expectedAmount=300')).json().data).toMatchObject({ id: first.id, status: 'SUCCESS', cached: true });
      expect(calls()).toBe(c0);
    });
  });
}
