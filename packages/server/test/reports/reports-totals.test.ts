import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DB_KINDS, type DbKind, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { createDashHarness, signup, type Owner } from '../dashboard/dash-helpers.js';
import type { Harness } from '../helpers/harness.js';
import { formatSatang, periodRanges } from '../../src/modules/reports/reports-time.js';
import { summaryText } from '../../src/modules/reports/reports-summary.js';
import { bkk, insertTx } from './reports-helpers.js';

for (const kind of DB_KINDS) describe.skipIf(pgMissing(kind))(`report totals (${kind})${skipNote(kind)}`, () => suite(kind));

/** The suite of one database kind (declared per kind above; hoisted). */
function suite(kind: DbKind) {
  let h: Harness;
  let clock: Awaited<ReturnType<typeof createDashHarness>>['clock'];
  let owner: Owner;
  beforeAll(async () => {
    ({ h, clock } = await createDashHarness(kind));
  });
  afterAll(async () => {
    await h?.close();
  });

  it('cuts today, week and month at Bangkok midnight (23:59 vs 00:01)', async () => {
    // Wednesday 11 November 2026, 10:00 in Bangkok (03:00 UTC).
    clock.set(bkk('2026-11-11T10:00:00'));
    owner = await signup(h);
    const shopId = owner.shopId;
    await insertTx(h, shopId, [
      { createdAt: bkk('2026-11-10T23:59:00'), amountSatang: 100_00 }, // yesterday (UTC date 10th)
      { createdAt: bkk('2026-11-11T00:01:00'), amountSatang: 250_50 }, // today, though its UTC date is still the 10th
      { createdAt: bkk('2026-11-08T23:59:00'), amountSatang: 7_00 }, // Sunday: last week, this month
      { createdAt: bkk('2026-11-09T00:01:00'), amountSatang: 3_00, source: 'LINE' }, // Monday: this week
      { createdAt: bkk('2026-10-31T23:59:00'), amountSatang: 999_99 }, // last month
      { createdAt: bkk('2026-11-01T00:01:00'), amountSatang: 1_01, receiverAccount: 'xxx-x-x9999-x', receiverName: 'Other' }, // this month (UTC 31 Oct)
      { createdAt: bkk('2026-11-11T09:00:00'), amountSatang: 500_00, status: 'DUPLICATE' },
      { createdAt: bkk('2026-11-11T09:01:00'), amountSatang: 40_00, status: 'AMOUNT_MISMATCH' },
      { createdAt: bkk('2026-11-11T09:02:00'), amountSatang: 60_00, status: 'RECEIVER_MISMATCH' },
      { createdAt: bkk('2026-11-11T09:03:00'), amountSatang: 1_000_00, status: 'FRAUD' },
      { createdAt: bkk('2026-11-11T09:04:00'), amountSatang: 77_00, status: 'INVALID' },
      { createdAt: bkk('2026-11-11T09:05:00'), amountSatang: 88_00, environment: 'test' }, // test keys never count as money
    ]);
    const other = await seedShop(h);
    await insertTx(h, other.shop.id, [{ createdAt: bkk('2026-11-11T09:00:00'), amountSatang: 123_45 }]);

    const res = await h.app.inject({ method: 'GET', url: '/api/dashboard/reports/totals', headers: owner.auth });
    expect(res.statusCode).toBe(200);
    const { timeZone, periods } = res.json().data;
    expect(timeZone).toBe('Asia/Bangkok');
    expect(periods.today.from).toBe(bkk('2026-11-11T00:00:00'));
    expect(periods.today.verified).toEqual({ count: 1, amountSatang: 250_50 });
    // The amount mismatch reached the shop: received, not stopped (issue 21).
    expect(periods.today.received).toMatchObject({ count: 2, amountSatang: 250_50 + 40_00 });
    expect(periods.week.from).toBe(bkk('2026-11-09T00:00:00'));
    expect(periods.week.verified).toEqual({ count: 3, amountSatang: 100_00 + 250_50 + 3_00 });
    expect(periods.month.from).toBe(bkk('2026-11-01T00:00:00'));
    expect(periods.month.verified).toEqual({ count: 5, amountSatang: 100_00 + 250_50 + 7_00 + 3_00 + 1_01 });
    expect(periods.today.stopped).toEqual({
      duplicate: { count: 1, amountSatang: 500_00 },
      forged: { count: 1, amountSatang: 1_000_00 },
      receiverMismatch: { count: 1, amountSatang: 60_00 },
    });
    expect(periods.week.received.byChannel).toEqual([
      { source: 'API', count: 3, amountSatang: 390_50 },
      { source: 'LINE', count: 1, amountSatang: 3_00 },
    ]);
    // Rows written without a matched payee (before migration 0016) share one "not recorded" row, whatever
    // their receiver text says.
    expect(
      periods.month.received.byPayee.map((p: { payeeId: string | null; count: number; amountSatang: number }) => [
        p.payeeId,
        p.count,
        p.amountSatang,
      ]),
    ).toEqual([[null, 6, 100_00 + 250_50 + 7_00 + 3_00 + 1_01 + 40_00]]);
    // At 23:59 the same day nothing moves; crossing midnight moves 00:01 out of "today" (asked of the service: the session would have expired).
    clock.set(bkk('2026-11-11T23:59:30'));
    const late = (await h.c.reports.totals.summary(shopId)).periods;
    expect(late.today.verified).toEqual({ count: 1, amountSatang: 250_50 });
    clock.set(bkk('2026-11-12T00:00:30'));
    const next = (await h.c.reports.totals.summary(shopId)).periods;
    expect(next.today.verified).toEqual({ count: 0, amountSatang: 0 });
    expect(next.week.verified.count).toBe(3);
    // The other shop's data never shows; no session, no totals.
    expect((await h.app.inject({ method: 'GET', url: '/api/dashboard/reports/totals' })).statusCode).toBe(401);
  });

  it("a duplicate without an amount of its own (found from the reference) counts the first check's amount as blocked money", async () => {
    clock.set(bkk('2026-11-20T12:00:00'));
    const shop = await signup(h);
    await insertTx(h, shop.shopId, [
      { createdAt: bkk('2026-11-20T09:00:00'), amountSatang: 1_250_50, transRef: 'SAMEREF001' },
      { createdAt: bkk('2026-11-20T09:05:00'), amountSatang: null, status: 'DUPLICATE', transRef: 'SAMEREF001' },
      { createdAt: bkk('2026-11-20T09:06:00'), amountSatang: 40_00, status: 'DUPLICATE', transRef: 'SAMEREF002' },
      // A test-key check of the same transfer is another world: it does not lend its amount to a live duplicate.
      { createdAt: bkk('2026-11-20T09:07:00'), amountSatang: 9_00, transRef: 'SAMEREF003', environment: 'test' },
      { createdAt: bkk('2026-11-20T09:08:00'), amountSatang: null, status: 'DUPLICATE', transRef: 'SAMEREF003' },
    ]);
    const today = (await h.c.reports.totals.summary(shop.shopId)).periods.today;
    expect(today.verified).toEqual({ count: 1, amountSatang: 1_250_50 });
    expect(today.stopped.duplicate).toEqual({ count: 3, amountSatang: 1_250_50 + 40_00 });
  });

  it('a stale slip refused outright (stale mode reject) is still received money, counted as stale; other INVALID results are in no figure', async () => {
    clock.set(bkk('2026-11-21T12:00:00'));
    const shop = await signup(h);
    const [staleId, unreadableId] = await insertTx(h, shop.shopId, [
      { createdAt: bkk('2026-11-21T09:00:00'), amountSatang: 77_00, status: 'INVALID' },
      { createdAt: bkk('2026-11-21T09:01:00'), amountSatang: null, status: 'INVALID' },
      { createdAt: bkk('2026-11-21T09:02:00'), amountSatang: 10_00 },
    ]);
    await h.c.db.updateTable('transactions').set({ stale: 1, error_code: 'STALE_SLIP' }).where('id', '=', staleId!).execute();
    await h.c.db.updateTable('transactions').set({ error_code: 'NO_QR_FOUND' }).where('id', '=', unreadableId!).execute();
    const today = (await h.c.reports.totals.summary(shop.shopId)).periods.today;
    expect(today.received).toMatchObject({ count: 2, amountSatang: 87_00 });
    expect(today.needsLook.stale).toEqual({ count: 1, amountSatang: 77_00 });
    expect(today.verified).toEqual({ count: 1, amountSatang: 10_00 });
  });

  it('an edited slip paid into the shop: the bank amount is received (needs a look), the printed extra stopped; paid elsewhere, all it printed is stopped', async () => {
    clock.set(bkk('2026-11-22T12:00:00'));
    const shop = await signup(h);
    const payee = await h.c.payees.add(shop.shopId, { bankCode: '004', accountNumber: '1234566609', holder: 'ร้าน' }, 'test');
    const [a, b, elsewhere, notFound, ok] = await insertTx(h, shop.shopId, [
      { createdAt: bkk('2026-11-22T09:00:00'), amountSatang: 100_00, status: 'FRAUD' }, // the picture says 1,100.00
      { createdAt: bkk('2026-11-22T09:01:00'), amountSatang: 200_00, status: 'FRAUD' }, // the picture says 900.00
      { createdAt: bkk('2026-11-22T09:02:00'), amountSatang: 50_00, status: 'FRAUD' }, // edited, and paid to another account
      { createdAt: bkk('2026-11-22T09:03:00'), amountSatang: null, status: 'FRAUD' }, // no such transfer
      { createdAt: bkk('2026-11-22T09:04:00'), amountSatang: 10_00 },
    ]);
    const edit = (id: string, printed: number, payeeId: string | null) =>
      h.c.db
        .updateTable('transactions')
        .set({ error_code: 'EDITED_SLIP', printed_amount_satang: printed, edited: 1, payee_id: payeeId })
        .where('id', '=', id)
        .execute();
    await edit(a!, 1_100_00, payee.id);
    await edit(b!, 900_00, payee.id);
    await edit(elsewhere!, 500_00, null);
    await h.c.db.updateTable('transactions').set({ error_code: 'SLIP_NOT_FOUND' }).where('id', '=', notFound!).execute();
    await h.c.db.updateTable('transactions').set({ payee_id: payee.id }).where('id', '=', ok!).execute();

    const today = (await h.c.reports.totals.summary(shop.shopId)).periods.today;
    // The bank statement shows 10.00 + 100.00 + 200.00 into the shop's account.
    expect(today.received).toMatchObject({ count: 3, amountSatang: 310_00 });
    expect(today.received.byPayee).toEqual([expect.objectContaining({ payeeId: payee.id, count: 3, amountSatang: 310_00 })]);
    expect(today.needsLook.edited).toEqual({ count: 2, amountSatang: 300_00 });
    expect(today.verified).toEqual({ count: 1, amountSatang: 10_00 });
    const { under, over, stale, edited } = today.needsLook;
    expect(today.verified.amountSatang + under.amountSatang + over.amountSatang + stale.amountSatang + edited.amountSatang).toBe(
      today.received.amountSatang,
    );
    // Trusting the pictures would have cost 1,000.00 + 700.00 unpaid, and 500.00 paid elsewhere.
    expect(today.stopped.forged).toEqual({ count: 4, amountSatang: 1_000_00 + 700_00 + 500_00 });
  });

  it('one transfer with several received results (edited picture, then the genuine one; a mismatch then its SUCCESS) counts once', async () => {
    clock.set(bkk('2026-11-23T12:00:00'));
    const shop = await signup(h);
    const payee = await h.c.payees.add(shop.shopId, { bankCode: '004', accountNumber: '1234566609', holder: 'ร้าน' }, 'test');
    const [edited, genuine, short, ok, , tenFirst, tenLast] = await insertTx(h, shop.shopId, [
      { createdAt: bkk('2026-11-23T09:00:00'), amountSatang: 100_00, status: 'FRAUD', transRef: 'T-EDIT' }, // printed 1,100.00
      { createdAt: bkk('2026-11-23T09:05:00'), amountSatang: 100_00, transRef: 'T-EDIT' }, // then the real picture
      { createdAt: bkk('2026-11-23T09:10:00'), amountSatang: 80_00, status: 'AMOUNT_MISMATCH', transRef: 'T-FIX' },
      { createdAt: bkk('2026-11-23T09:11:00'), amountSatang: 80_00, transRef: 'T-FIX' },
      { createdAt: bkk('2026-11-23T09:12:00'), amountSatang: 80_00, status: 'DUPLICATE', transRef: 'T-FIX' },
      { createdAt: bkk('2026-11-23T09:20:00'), amountSatang: 10_00, status: 'AMOUNT_MISMATCH', transRef: 'T-TWICE' },
      { createdAt: bkk('2026-11-23T09:21:00'), amountSatang: 10_00, status: 'AMOUNT_MISMATCH', transRef: 'T-TWICE' },
    ]);
    await h.c.db
      .updateTable('transactions')
      .set({ error_code: 'EDITED_SLIP', printed_amount_satang: 1_100_00, edited: 1, payee_id: payee.id })
      .where('id', '=', edited!)
      .execute();
    await h.c.db.updateTable('transactions').set({ expected_amount_satang: 100_00 }).where('id', '=', short!).execute();
    await h.c.db.updateTable('transactions').set({ expected_amount_satang: 5_00 }).where('id', '=', tenFirst!).execute(); // over
    await h.c.db.updateTable('transactions').set({ expected_amount_satang: 12_00 }).where('id', '=', tenLast!).execute(); // under
    await h.c.db
      .updateTable('transactions')
      .set({ payee_id: payee.id })
      .where('id', 'in', [genuine!, short!, ok!, tenFirst!, tenLast!])
      .execute();

    const today = (await h.c.reports.totals.summary(shop.shopId)).periods.today;
    // The bank statement: 100.00, 80.00 and 10.00, once each.
    expect(today.received).toMatchObject({ count: 3, amountSatang: 190_00 });
    expect(today.received.byPayee).toEqual([expect.objectContaining({ payeeId: payee.id, count: 3, amountSatang: 190_00 })]);
    expect(today.verified).toEqual({ count: 2, amountSatang: 180_00 });
    // T-TWICE is judged by its last check: 12.00 asked, 10.00 came.
    expect(today.needsLook).toEqual({
      under: { count: 1, amountSatang: 10_00, differenceSatang: 2_00 },
      over: { count: 0, amountSatang: 0, differenceSatang: 0 },
      stale: { count: 0, amountSatang: 0 },
      edited: { count: 0, amountSatang: 0 },
    });
    // The edited picture was still an attempt: the 1,000.00 it printed beyond the transfer stays stopped.
    expect(today.stopped.forged).toEqual({ count: 1, amountSatang: 1_000_00 });
    expect(today.stopped.duplicate).toEqual({ count: 1, amountSatang: 80_00 });
  });

  it("received names the part transferred before the period: that money is on an earlier day's bank statement", async () => {
    // A transfer made at 23:59 and checked at 00:05, and an old slip checked today, were in today's
    // received with nothing to tell them apart, while the card said it matches the bank app for today.
    clock.set(bkk('2026-11-11T10:00:00'));
    const o = await signup(h);
    const [genuineToday, lateNight, oldSlip, corrected] = await insertTx(h, o.shopId, [
      { createdAt: bkk('2026-11-11T09:00:00'), amountSatang: 100_00 },
      { createdAt: bkk('2026-11-11T00:05:00'), transDate: bkk('2026-11-10T23:59:00'), amountSatang: 55_50 },
      { createdAt: bkk('2026-11-11T09:10:00'), transDate: bkk('2026-11-02T12:00:00'), amountSatang: 777_77, status: 'AMOUNT_MISMATCH' },
      { createdAt: bkk('2026-11-11T09:20:00'), transDate: bkk('2026-11-10T22:00:00'), amountSatang: 30_00, status: 'AMOUNT_MISMATCH' },
      { createdAt: bkk('2026-11-11T09:30:00'), transDate: bkk('2026-11-10T20:00:00'), amountSatang: 500_00, status: 'DUPLICATE' },
    ]);
    expect([genuineToday, lateNight, oldSlip, corrected].every(Boolean)).toBe(true);
    // The mismatch corrected later: one transfer, counted once, still from yesterday's statement.
    const ref = (await h.c.db.selectFrom('transactions').select('trans_ref').where('id', '=', corrected!).executeTakeFirstOrThrow())
      .trans_ref;
    await insertTx(h, o.shopId, [
      { createdAt: bkk('2026-11-11T09:25:00'), transDate: bkk('2026-11-10T22:00:00'), amountSatang: 30_00, transRef: ref },
    ]);
    const { periods } = (await h.app.inject({ method: 'GET', url: '/api/dashboard/reports/totals', headers: o.auth })).json().data;
    expect(periods.today.received).toMatchObject({ count: 4, amountSatang: 100_00 + 55_50 + 777_77 + 30_00 });
    // What today's statement shows of these: received minus the earlier part.
    expect(periods.today.received.earlier).toEqual({ count: 3, amountSatang: 55_50 + 777_77 + 30_00 });
    // This week began on Monday the 9th: only the slip of the 2nd is from before it.
    expect(periods.week.received.earlier).toEqual({ count: 1, amountSatang: 777_77 });
    expect(periods.month.received.earlier).toEqual({ count: 0, amountSatang: 0 });
    // The day's summary (LINE, e-mail) carries the same figure.
    const f = await h.c.reports.summary.facts(await h.c.shops.get(o.shopId), '2026-11-11');
    expect([f.earlierCount, f.earlierSatang]).toEqual([3, 55_50 + 777_77 + 30_00]);
    // Counted at 10:00 of that day: the summary says so (checks after it are in no summary, only the list).
    expect(f.asOf).toBe('10:00');
    expect((await h.c.reports.summary.facts(await h.c.shops.get(o.shopId), '2026-11-10')).asOf).toBeNull();
  });

  it("a trial's daily summary says what is left of the trial's slips, not 'this month', across a month", async () => {
    // The trial's 50 slips count over its 7 days (TRIAL_QUOTA). Signed up on 28 November, the trial runs
    // into December: the summary of 1 December said "checks left this month", as if a fresh 50 had begun.
    clock.set(bkk('2026-11-28T12:00:00'));
    const o = await signup(h);
    await h.c.quota.adjust(o.shopId, { used: 45 }, 'test');
    clock.set(bkk('2026-12-01T21:00:00'));
    await insertTx(h, o.shopId, [{ createdAt: bkk('2026-12-01T09:00:00'), amountSatang: 8_20 }]);
    const shop = await h.c.shops.get(o.shopId);
    const f = await h.c.reports.summary.facts(shop, '2026-12-01');
    expect(f).toMatchObject({ quotaLeft: 5, quotaTrial: true });
    const th = summaryText(f, 'th').text;
    const en = summaryText(f, 'en').text;
    expect(th).toContain('สิทธิ์ตรวจสลิปของช่วงทดลองใช้คงเหลือ 5 จาก 50 ครั้ง');
    expect(en).toContain("Trial checks left: 5 of the trial's 50");
    expect(th).not.toContain('เดือนนี้');
    expect(en).not.toContain('this month');
    // A paid plan keeps its monthly words.
    await h.c.shops.setPlan(o.shopId, 'STARTER', 'test');
    const paid = await h.c.reports.summary.facts(await h.c.shops.get(o.shopId), '2026-12-01');
    expect(paid.quotaTrial).toBe(false);
    expect(summaryText(paid, 'th').text).toMatch(/โควตาคงเหลือเดือนนี้ \d+ ครั้ง/);
    expect(summaryText(paid, 'en').text).toMatch(/Checks left this month: \d+/);
  });

  it('sums 10,000 random amounts exactly (integer satang end to end)', async () => {
    clock.set(bkk('2026-12-15T12:00:00'));
    const shop = await signup(h);
    const amounts = fc.sample(fc.integer({ min: 1, max: 2_000_000_00 }), { numRuns: 10_000, seed: 20261215 });
    await insertTx(
      h,
      shop.shopId,
      amounts.map((a, i) => ({ createdAt: new Date(Date.parse(bkk('2026-12-15T00:00:00')) + i * 1000).toISOString(), amountSatang: a })),
    );
    const exact = amounts.reduce((s, a) => s + BigInt(a), 0n);
    const data = (await h.app.inject({ method: 'GET', url: '/api/dashboard/reports/totals', headers: shop.auth })).json().data;
    expect(data.periods.today.verified.count).toBe(10_000);
    expect(BigInt(data.periods.today.verified.amountSatang)).toBe(exact);
    expect(Number.isInteger(data.periods.today.verified.amountSatang)).toBe(true);
    expect(formatSatang(data.periods.today.verified.amountSatang, false)).toBe(`${exact / 100n}.${String(exact % 100n).padStart(2, '0')}`);
  }, 60_000);
}

describe('Bangkok period ranges', () => {
  it('week starts on Monday and month on the 1st, at local midnight', () => {
    const r = periodRanges(new Date(bkk('2026-11-01T00:00:01')), 'Asia/Bangkok'); // a Sunday
    expect(r.today.from.toISOString()).toBe(bkk('2026-11-01T00:00:00'));
    expect(r.week.from.toISOString()).toBe(bkk('2026-10-26T00:00:00'));
    expect(r.month.from.toISOString()).toBe(bkk('2026-11-01T00:00:00'));
    expect(r.month.to.toISOString()).toBe(bkk('2026-12-01T00:00:00'));
    const dec = periodRanges(new Date(bkk('2026-12-31T23:59:59')), 'Asia/Bangkok');
    expect(dec.month.to.toISOString()).toBe(bkk('2027-01-01T00:00:00'));
    expect(dec.today.to.toISOString()).toBe(bkk('2027-01-01T00:00:00'));
  });
  it('formats satang without floats', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (s) => {
        const text = formatSatang(s, false);
        expect(BigInt(text.replace('.', ''))).toBe(BigInt(s));
      }),
    );
    expect(formatSatang(123456789)).toBe('1,234,567.89');
  });
});
