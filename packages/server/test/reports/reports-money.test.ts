/**
 * The money view reconciles with the bank statement (issue 21): slips from several sending banks into
 * one account go through the real pipeline (sandbox bank over loopback), and the totals give one row
 * per payee account, count genuine transfers whatever their check said (mismatches both ways, stale)
 * as received, and keep the stopped money (duplicates, forged slips, other accounts) apart from it.
 */
import { Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type DbKind, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { createBankHarness, NO_RATE_LIMITS } from '../helpers/bank-harness.js';
import { insertTx } from './reports-helpers.js';
import { backfillRecordPayees } from '../../src/db/migrations/0016-record-payee.js';

const ACCOUNT = '1234566609';

/** Every received result is in exactly one of verified and the needs-a-look groups: their sum is received. */
function receivedIsItsParts(t: {
  received: { amountSatang: number };
  verified: { amountSatang: number };
  needsLook: Record<'under' | 'over' | 'stale' | 'edited', { amountSatang: number }>;
}) {
  const { under, over, stale, edited } = t.needsLook;
  expect(t.received.amountSatang).toBe(
    t.verified.amountSatang + under.amountSatang + over.amountSatang + stale.amountSatang + edited.amountSatang,
  );
}

for (const kind of DB_KINDS)
  describe.skipIf(pgMissing(kind))(`money totals from the verify pipeline (${kind})${skipNote(kind)}`, () => suite(kind));

/** The suite of one database kind (declared per kind above; hoisted). */
function suite(kind: DbKind) {
  let b: Awaited<ReturnType<typeof createBankHarness>>;
  let shop: Awaited<ReturnType<typeof seedShop>>;
  let second: { id: string };
  const records: Array<{ id: string; status: string; satang: number; stale: boolean; transRef: string }> = [];

  async function check(opts: {
    bank: string;
    satang: number;
    expect?: string;
    receiver?: string;
    daysOld?: number;
    fault?: string;
    again?: string;
  }) {
    const transRef =
      opts.again ??
      (
        await b.bank.register({
          sendingBank: opts.bank,
          amount: opts.satang / 100,
          receiver: {
            name: 'บจก. ร้านกาแฟ ทดสอบ',
            account: opts.receiver ?? ACCOUNT,
            bankCode: opts.receiver === '9876543210' ? '014' : '004',
          },
          ...(opts.daysOld ? { transDate: new Date(Date.now() - opts.daysOld * 86_400_000).toISOString() } : {}),
          ...(opts.fault ? { fault: opts.fault } : {}),
        })
      ).transRef;
    const img = await b.bank.slip(transRef, 'clean', opts.again ? 'jpg' : 'png');
    const q = opts.expect ? `?amount=${opts.expect}` : '';
    const res = await fetch(`${b.base}/api/v1/verify${q}`, {
      method: 'POST',
      headers: { ...shop.auth, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(img),
    });
    const data = ((await res.json()) as { data: { id: string; status: string; stale: boolean } }).data;
    records.push({ id: data.id, status: data.status, satang: opts.satang, stale: data.stale, transRef });
    return data;
  }

  beforeAll(async () => {
    b = await createBankHarness(kind, NO_RATE_LIMITS, { listen: true });
    shop = await seedShop(b.h);
    second = await b.h.c.payees.add(shop.shop.id, { bankCode: '014', accountNumber: '9876543210', holder: 'บจก. ร้านกาแฟ ทดสอบ' }, 'test');
  }, 60_000);
  afterAll(async () => {
    await b?.close();
  });

  it('one row per payee account, received = every genuine transfer, stopped holds none of it', async () => {
    // Six sending banks, each masking the shop's KBANK account its own way.
    for (const [bank, satang] of [
      ['002', 120_00],
      ['004', 250_50],
      ['006', 99_00],
      ['014', 1_000_00],
      ['025', 45_25],
      ['011', 300_00],
    ] as const)
      expect((await check({ bank, satang })).status).toBe('SUCCESS');
    expect((await check({ bank: '014', satang: 500_00, expect: '550' })).status).toBe('AMOUNT_MISMATCH'); // paid short
    expect((await check({ bank: '002', satang: 640_00, expect: '600' })).status).toBe('AMOUNT_MISMATCH'); // paid over
    const stale = await check({ bank: '006', satang: 77_00, daysOld: 3 });
    expect(stale).toMatchObject({ status: 'SUCCESS', stale: true });
    expect((await check({ bank: '025', satang: 33_00, receiver: '9876543210' })).status).toBe('SUCCESS'); // the second account
    const first = records[3]!;
    expect((await check({ bank: '014', satang: 1_000_00, again: first.transRef })).status).toBe('DUPLICATE');
    expect((await check({ bank: '004', satang: 60_00, receiver: '5550001111' })).status).toBe('RECEIVER_MISMATCH');
    expect((await check({ bank: '004', satang: 1_00, fault: 'not_found' })).status).toBe('FRAUD');

    // The matched account is on the record.
    const rows = await b.h.c.db
      .selectFrom('transactions')
      .select(['id', 'status', 'payee_id'])
      .where('shop_id', '=', shop.shop.id)
      .execute();
    const payeeOf = Object.fromEntries(rows.map((r) => [r.id, r.payee_id]));
    for (const r of records) {
      const received = r.status === 'SUCCESS' || r.status === 'AMOUNT_MISMATCH';
      if (!received) expect(payeeOf[r.id], r.status).toBeNull();
    }
    expect(payeeOf[records[0]!.id]).toBe(shop.payee!.id);
    expect(payeeOf[records[9]!.id]).toBe(second.id);

    const t = (await b.h.c.reports.totals.summary(shop.shop.id)).periods.today;
    const genuine = records.filter((r) => r.status === 'SUCCESS' || r.status === 'AMOUNT_MISMATCH');
    const sum = (xs: typeof records) => xs.reduce((s, r) => s + r.satang, 0);
    expect(t.received).toMatchObject({ count: genuine.length, amountSatang: sum(genuine) });
    expect(t.received.byPayee.map((p) => [p.payeeId, p.bankCode, p.accountLast4, p.count, p.amountSatang])).toEqual([
      [shop.payee!.id, '004', '6609', genuine.length - 1, sum(genuine) - 33_00],
      [second.id, '014', '3210', 1, 33_00],
    ]);
    expect(t.verified).toEqual({ count: 7, amountSatang: sum(genuine) - 500_00 - 640_00 - 77_00 });
    expect(t.needsLook).toEqual({
      under: { count: 1, amountSatang: 500_00, differenceSatang: 50_00 },
      over: { count: 1, amountSatang: 640_00, differenceSatang: 40_00 },
      stale: { count: 1, amountSatang: 77_00 },
      edited: { count: 0, amountSatang: 0 },
    });
    receivedIsItsParts(t);
    expect(t.stopped).toEqual({
      duplicate: { count: 1, amountSatang: 1_000_00 },
      forged: { count: 1, amountSatang: 0 },
      receiverMismatch: { count: 1, amountSatang: 60_00 },
    });
    expect(t.received.byChannel).toEqual([{ source: 'API', count: genuine.length, amountSatang: sum(genuine) }]);
  }, 120_000);

  it('a transfer checked more than once (a wrong amount, then the right one) is received once, as its last word', async () => {
    // The bank credited 300.00 and 200.00 once each, but a mismatch corrected by a second check (the
    // checker is asked again when the first result was not SUCCESS) and the same slip tried for two
    // amounts each left two received records: the card said 1,000.00 against a statement of 500.00.
    const before = (await b.h.c.reports.totals.summary(shop.shop.id)).periods.today;
    const a = await check({ bank: '014', satang: 300_00, expect: '299.99' });
    expect(a.status).toBe('AMOUNT_MISMATCH');
    const fixed = await check({ bank: '014', satang: 300_00, expect: '300', again: records.at(-1)!.transRef });
    expect(fixed.status).toBe('SUCCESS');
    expect((await check({ bank: '002', satang: 200_00, expect: '150' })).status).toBe('AMOUNT_MISMATCH');
    const last = await check({ bank: '002', satang: 200_00, expect: '180', again: records.at(-1)!.transRef });
    expect(last.status).toBe('AMOUNT_MISMATCH');
    // Still a DUPLICATE for a third image after the SUCCESS: stopped money, never received.
    expect((await check({ bank: '014', satang: 300_00, expect: '301', again: records.at(-4)!.transRef })).status).toBe('DUPLICATE');

    const t = (await b.h.c.reports.totals.summary(shop.shop.id)).periods.today;
    const delta = (x: { count: number; amountSatang: number }, y: { count: number; amountSatang: number }) => [
      x.count - y.count,
      x.amountSatang - y.amountSatang,
    ];
    expect(delta(t.received, before.received)).toEqual([2, 500_00]);
    expect(delta(t.verified, before.verified)).toEqual([1, 300_00]);
    // The 200.00 transfer is under by its last check's expectation (180.00 asked, 200.00 came: over by 20.00).
    expect(delta(t.needsLook.under, before.needsLook.under)).toEqual([0, 0]);
    expect(delta(t.needsLook.over, before.needsLook.over)).toEqual([1, 200_00]);
    expect(t.needsLook.over.differenceSatang - before.needsLook.over.differenceSatang).toBe(20_00);
    expect(delta(t.stopped.duplicate, before.stopped.duplicate)).toEqual([1, 300_00]);
    receivedIsItsParts(t);
    expect(t.received.byPayee.reduce((s, p) => s + p.amountSatang, 0)).toBe(t.received.amountSatang);
    expect(t.received.byChannel.reduce((s, p) => s + p.amountSatang, 0)).toBe(t.received.amountSatang);
  }, 120_000);

  it('rows checked before the payee was recorded are placed by the migration, or shown as not recorded', async () => {
    const one = await seedShop(b.h);
    const two = await seedShop(b.h);
    await b.h.c.payees.add(two.shop.id, { bankCode: '014', accountNumber: '9876543210', holder: 'Other' }, 'test');
    const at = new Date().toISOString();
    await insertTx(b.h, one.shop.id, [
      { createdAt: at, amountSatang: 10_00, receiverAccount: 'XXX-X-56660-X' },
      { createdAt: at, amountSatang: 20_00, receiverAccount: null, receiverName: null }, // anonymised: the shop's only account
    ]);
    await insertTx(b.h, two.shop.id, [
      { createdAt: at, amountSatang: 30_00, receiverAccount: 'xxxxxx6609' },
      { createdAt: at, amountSatang: 40_00, receiverAccount: 'xxx-x-x4321-x' },
      { createdAt: at, amountSatang: 50_00, receiverAccount: null, receiverName: null }, // two accounts: cannot tell
      { createdAt: at, amountSatang: 60_00, status: 'RECEIVER_MISMATCH', receiverAccount: 'xxx-x-x4321-x' }, // never the shop's money
    ]);
    await backfillRecordPayees(b.h.c.db);
    const p1 = (await b.h.c.reports.totals.summary(one.shop.id)).periods.today.received.byPayee;
    expect(p1.map((p) => [p.accountLast4, p.amountSatang])).toEqual([['6609', 30_00]]);
    const p2 = (await b.h.c.reports.totals.summary(two.shop.id)).periods.today;
    expect(p2.received.byPayee.map((p) => [p.accountLast4, p.exists, p.amountSatang])).toEqual([
      [null, false, 50_00],
      ['3210', true, 40_00],
      ['6609', true, 30_00],
    ]);
    expect(p2.stopped.receiverMismatch).toEqual({ count: 1, amountSatang: 60_00 });
  });

  it("the export credits each transfer once on its shop account: the accountant's sum is the card's received", async () => {
    // The export listed every check with its amount (a duplicate, a corrected mismatch and its correction,
    // an edited slip, a transfer to another account): summed, or pivoted by the receiver as a sending bank
    // masked it, it said far more than the statement, and nothing told which rows were the shop's credits.
    const t = (await b.h.c.reports.totals.summary(shop.shop.id)).periods.today;
    const rowsOf = async (lang: 'th' | 'en') => {
      const o = await b.h.c.reports.prepareExport(shop.shop.id, {}, 'csv', lang, 'test');
      const chunks: Buffer[] = [];
      const out = new Writable({
        write(c, _e, cb) {
          chunks.push(c as Buffer);
          cb();
        },
      });
      await b.h.c.reports.writeExport(shop.shop.id, {}, o, out);
      return parse(Buffer.concat(chunks), { bom: true, columns: true }) as Array<Record<string, string>>;
    };
    const rows = await rowsOf('en');
    // "1234.50" -> 123450 without a float.
    const satang = (v: string) => (v === '' ? 0 : Number(v.replace('.', '')));
    const credited = rows.filter((r) => r['Credited to the shop (THB)'] !== '');
    expect(credited.reduce((s, r) => s + satang(r['Credited to the shop (THB)']!), 0)).toBe(t.received.amountSatang);
    expect(credited).toHaveLength(t.received.count);
    // Each bank transfer is credited on one row, however many times it was checked.
    const refs = credited.map((r) => r['Bank reference']);
    expect(new Set(refs).size).toBe(refs.length);
    expect(rows.length).toBeGreaterThan(credited.length);
    for (const r of rows.filter(
      (x) => ['DUPLICATE', 'RECEIVER_MISMATCH', 'FRAUD'].includes(x.Result!) && x['Result (meaning)'] !== 'Edited slip',
    ))
      expect(r['Credited to the shop (THB)'], r.Result).toBe('');
    // Pivoted by the shop account, the credits are the card's "by account" rows.
    const byAccount = new Map<string, number>();
    for (const r of credited)
      byAccount.set(
        r['Shop account credited']!,
        (byAccount.get(r['Shop account credited']!) ?? 0) + satang(r['Credited to the shop (THB)']!),
      );
    expect([...byAccount.entries()].sort()).toEqual(
      t.received.byPayee
        .filter((p) => p.count > 0)
        .map((p) => [`${p.bankCode === '004' ? 'Kasikornbank' : 'Siam Commercial Bank'} ••••${p.accountLast4} ${p.holder}`, p.amountSatang])
        .sort(),
    );
    // The time columns say their zone.
    expect(Object.keys(rows[0]!)).toEqual(expect.arrayContaining(['Checked at (UTC+07:00)', 'Transfer time (UTC+07:00)']));
    const th = await rowsOf('th');
    expect(Object.keys(th[0]!)).toEqual(expect.arrayContaining(['วันเวลาที่ตรวจ (เวลาไทย UTC+07:00)', 'ยอดเข้าบัญชีร้าน (บาท)', 'บัญชีร้านที่รับเงิน']));
    expect(th.find((r) => r['ยอดเข้าบัญชีร้าน (บาท)'] !== '')!['บัญชีร้านที่รับเงิน']).toMatch(/^ธนาคาร\S+ ••••\d{4} /);
  });
}
