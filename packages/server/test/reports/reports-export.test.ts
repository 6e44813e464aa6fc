import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { DB_KINDS, type DbKind, pgMissing, skipNote } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';
import { createDashHarness, signup, type Owner } from '../dashboard/dash-helpers.js';
import { bkk, insertTx } from './reports-helpers.js';
import { EXPORT_COLUMNS } from '../../src/modules/reports/reports-export.js';
import { STALE_WORD, STATUS_WORDS, THAI_BANKS } from '@slipcheck/sdk';

const BOM = '\uFEFF';

for (const kind of DB_KINDS) describe.skipIf(pgMissing(kind))(`transactions export (${kind})${skipNote(kind)}`, () => suite(kind));

/** The suite of one database kind (declared per kind above; hoisted). */
function suite(kind: DbKind) {
  let h: Harness;
  let owner: Owner;
  let other: Owner;
  beforeAll(async () => {
    let clock;
    ({ h, clock } = await createDashHarness(kind));
    clock.set(bkk('2026-11-11T10:00:00'));
    owner = await signup(h, { shopName: 'ร้านส้มตำ ป้าแดง' });
    other = await signup(h);
    await insertTx(h, owner.shopId, [
      { createdAt: bkk('2026-11-11T00:01:00'), amountSatang: 1_234_50, clientRef: 'ORD-1001', senderName: 'นางสาว มานี มีนา' },
      { createdAt: bkk('2026-11-10T23:59:00'), amountSatang: 99_00, clientRef: 'ORD-1000', status: 'DUPLICATE' },
      { createdAt: bkk('2026-11-09T12:00:00'), amountSatang: 5_00, clientRef: 'ORD-0999', source: 'LINE' },
      // Older than a one-month retention: the anonymisation rule applies to it even before the hourly run blanks it.
      { createdAt: bkk('2026-09-01T12:00:00'), amountSatang: 700_00, clientRef: 'ORD-0001', senderName: 'นาย เก่า มาก' },
    ]);
    await insertTx(h, other.shopId, [{ createdAt: bkk('2026-11-11T01:00:00'), amountSatang: 1_00, clientRef: 'OTHER-1' }]);
  });
  afterAll(async () => {
    await h?.close();
  });
  const get = (url: string, who: Owner | null = owner) => h.app.inject({ method: 'GET', url, headers: who ? who.auth : {} });

  it('CSV: UTF-8 with BOM, Thai headers and Thai text intact when parsed back, filters and clientRef carried', async () => {
    const res = await get('/api/dashboard/transactions/export?format=csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(String(res.headers['content-disposition'])).toBe('attachment; filename="slipcheck-2026-11-11.csv"');
    expect(res.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const text = res.rawPayload.toString('utf8');
    expect(text.startsWith(BOM)).toBe(true);
    const rows = parse(text, { bom: true, columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(4);
    expect(Object.keys(rows[0])).toContain('จำนวนเงิน (บาท)');
    expect(rows[0]['วันเวลาที่ตรวจ (เวลาไทย UTC+07:00)']).toBe('2026-11-11 00:01:00'); // Bangkok wall time, and the header says so
    expect(rows[0]['จำนวนเงิน (บาท)']).toBe('1234.50');
    expect(rows[0]['เลขออเดอร์ (clientRef)']).toBe('ORD-1001');
    expect(rows[0]['ชื่อผู้โอน']).toBe('นางสาว มานี มีนา');
    expect(rows[0]['ผลตรวจ (คำอธิบาย)']).toBe('ถูกต้อง'); // the screen's word
    expect(rows[1]['ผลตรวจ']).toBe('DUPLICATE');
    expect(rows.map((r) => r['เลขออเดอร์ (clientRef)'])).not.toContain('OTHER-1');

    const en = parse((await get('/api/dashboard/transactions/export?format=csv&lang=en&clientRef=ORD-1000')).rawPayload, {
      bom: true,
      columns: true,
    }) as Array<Record<string, string>>;
    expect(en).toEqual([
      expect.objectContaining({
        'Amount (THB)': '99.00',
        'Order ref (clientRef)': 'ORD-1000',
        Result: 'DUPLICATE',
        'Result (meaning)': 'Duplicate',
      }),
    ]);
    const ranged = parse((await get('/api/dashboard/transactions/export?format=csv&amountMin=5&amountMax=99')).rawPayload, {
      bom: true,
      columns: true,
    }) as Array<Record<string, string>>;
    expect(ranged.map((r) => r['จำนวนเงิน (บาท)'])).toEqual(['99.00', '5.00']);
  });

  it('XLSX: read back with exceljs, money as numbers with two decimals, dates as real dates', async () => {
    const res = await get('/api/dashboard/transactions/export?format=xlsx&lang=en&source=API');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const ws = wb.worksheets[0];
    const header = (ws.getRow(1).values as unknown[]).slice(1);
    expect(header.slice(0, 5)).toEqual(['Checked at (UTC+07:00)', 'Result', 'Result (meaning)', 'Amount (THB)', 'Order ref (clientRef)']);
    expect(header.slice(-2)).toEqual(['Credited to the shop (THB)', 'Shop account credited']);
    expect(ws.rowCount).toBe(4); // header + 3 API rows
    const first = ws.getRow(2);
    const amountCell = first.getCell(4);
    expect(amountCell.value).toBe(1234.5);
    expect(amountCell.numFmt).toBe('#,##0.00');
    const when = first.getCell(1);
    expect(when.value).toBeInstanceOf(Date);
    // The cell shows Bangkok wall time (spreadsheets have no zones).
    expect((when.value as Date).toISOString()).toBe('2026-11-11T00:01:00.000Z');
    expect(first.getCell(5).value).toBe('ORD-1001');
    const th = new ExcelJS.Workbook();
    await th.xlsx.load((await get('/api/dashboard/transactions/export?format=xlsx')).rawPayload as unknown as ArrayBuffer);
    expect(th.worksheets[0].getRow(1).getCell(4).value).toBe('จำนวนเงิน (บาท)');
    expect(th.worksheets[0].getRow(2).getCell(9).value).toBe('นางสาว มานี มีนา');
    // The Thai file's two time columns are date cells too (sortable and filterable in Excel and
    // LibreOffice), Bangkok wall time with a readable format; never ISO text.
    for (const key of ['createdAt', 'transDate'] as const) {
      const cell = th.worksheets[0].getRow(2).getCell(EXPORT_COLUMNS.findIndex((c) => c.key === key) + 1);
      expect(cell.type, key).toBe(ExcelJS.ValueType.Date);
      expect((cell.value as Date).toISOString(), key).toBe('2026-11-11T00:01:00.000Z');
      expect(cell.numFmt, key).toBe('yyyy-mm-dd hh:mm:ss');
    }
  });

  it('exports are audit events; personal fields follow the anonymisation rule', async () => {
    const before = (await h.c.audit.list(owner.shopId)).filter((a) => a.action === 'transactions.export').length;
    await h.c.shops.update(owner.shopId, { settings: { privacy: { autoDelete: true, retentionMonths: 1 } } }, 'test');
    const rows = parse((await get('/api/dashboard/transactions/export?format=csv&lang=en')).rawPayload, {
      bom: true,
      columns: true,
    }) as Array<Record<string, string>>;
    const old = rows.find((r) => r['Amount (THB)'] === '700.00')!;
    expect(old).toBeDefined();
    expect([
      old['Sender name'],
      old['Sender account'],
      old['Receiver name'],
      old['Receiver account'],
      old['Order ref (clientRef)'],
    ]).toEqual(['', '', '', '', '']);
    expect(rows.find((r) => r['Amount (THB)'] === '1234.50')!['Sender name']).toBe('นางสาว มานี มีนา');
    await h.c.shops.update(owner.shopId, { settings: { privacy: { autoDelete: false } } }, 'test');
    const audit = (await h.c.audit.list(owner.shopId)).filter((a) => a.action === 'transactions.export');
    expect(audit.length).toBe(before + 1);
    expect(audit[0]).toMatchObject({ actor: `user:${owner.userId}`, detail: { format: 'csv', lang: 'en' } });
  });

  it('CSV cells starting with = + - @ tab or CR (from clientRef or from bank data) are neutralised; XLSX keeps text cells', async () => {
    const evil = [
      '=HYPERLINK("http://evil.example/x","open")',
      '=1+2',
      '@SUM(1+1)',
      '+66812345678',
      '-2+3',
      '\t=1+2',
      '\r=1+2',
      '\uFF1D1+2', // full-width =, which spreadsheets also read as a formula
    ];
    const shop = await signup(h);
    await insertTx(
      h,
      shop.shopId,
      evil.map((v, i) => ({ createdAt: bkk(`2026-11-11T01:0${i}:00`), clientRef: v, senderName: v, receiverName: v })),
    );
    const res = await get('/api/dashboard/transactions/export?format=csv&lang=en', shop);
    const rows = parse(res.rawPayload, { bom: true, columns: true, relax_quotes: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(evil.length);
    const risky = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
    for (const r of rows) {
      for (const [col, cell] of Object.entries(r)) expect(risky.test(cell), `${col}: ${JSON.stringify(cell)}`).toBe(false);
    }
    // The text is all there after the quote mark that disarms it.
    expect(rows.map((r) => r['Order ref (clientRef)']).sort()).toEqual(evil.map((v) => `'${v}`).sort());
    expect(rows.map((r) => r['Sender name']).sort()).toEqual(evil.map((v) => `'${v}`).sort());
    // XLSX: strings are text cells, never formulas, and keep their exact value.
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await get('/api/dashboard/transactions/export?format=xlsx&lang=en', shop)).rawPayload as unknown as ArrayBuffer);
    const ws = wb.worksheets[0];
    const refs: unknown[] = [];
    ws.eachRow((row, n) => {
      if (n > 1) refs.push(row.getCell(5).value);
    });
    expect(refs.every((v) => typeof v === 'string')).toBe(true); // a formula cell would be an object
    // XML turns a lone CR into LF when the file is read (exceljs writes it unescaped): the text is otherwise exact.
    expect(refs.sort()).toEqual(evil.map((v) => v.replace('\r', '\n')).sort());
  });

  it("the credited column follows the totals' received rule, also for a record without a bank reference", async () => {
    const shop = await signup(h);
    await insertTx(h, shop.shopId, [
      { createdAt: bkk('2026-11-11T02:00:00'), amountSatang: 10_00, transRef: null },
      { createdAt: bkk('2026-11-11T02:01:00'), amountSatang: 20_00, status: 'RECEIVER_MISMATCH' },
      { createdAt: bkk('2026-11-11T02:02:00'), amountSatang: 40_00, environment: 'test' },
    ]);
    const rows = parse((await get('/api/dashboard/transactions/export?format=csv&lang=en', shop)).rawPayload, {
      bom: true,
      columns: true,
    }) as Array<Record<string, string>>;
    const today = (await h.app.inject({ method: 'GET', url: '/api/dashboard/reports/totals', headers: shop.auth })).json().data.periods
      .today;
    expect(today.received).toMatchObject({ count: 1, amountSatang: 10_00 });
    expect(rows.map((r) => [r['Amount (THB)'], r['Credited to the shop (THB)']])).toEqual([
      ['40.00', ''],
      ['20.00', ''],
      ['10.00', '10.00'],
    ]);
  });

  it('file names carry the Bangkok date and the filter range', async () => {
    // 10:00 on the 11th in Bangkok; at 23:30 UTC on the 10th it is already the 11th in Bangkok.
    const name = async (q: string) =>
      /filename="([^"]+)"/.exec(String((await get(`/api/dashboard/transactions/export?${q}`)).headers['content-disposition']))?.[1];
    expect(await name('format=csv')).toBe('slipcheck-2026-11-11.csv');
    expect(await name(`format=xlsx&from=${bkk('2026-11-01T00:00:00')}&to=${bkk('2026-11-30T23:59:59')}`)).toBe(
      'slipcheck-2026-11-01_2026-11-30.xlsx',
    );
    expect(await name(`format=csv&from=${bkk('2026-11-05T00:00:00')}&to=${bkk('2026-11-05T23:59:59')}`)).toBe('slipcheck-2026-11-05.csv');
    expect(await name(`format=csv&from=${bkk('2026-11-05T00:00:00')}`)).toBe('slipcheck-2026-11-05_2026-11-11.csv');
  });

  it('one vocabulary: the export says what the screen says, banks and channels in the language, stale marked', async () => {
    const shop = await signup(h);
    await insertTx(h, shop.shopId, [{ createdAt: bkk('2026-11-11T02:00:00'), source: 'DASHBOARD' }]);
    await h.c.db.updateTable('transactions').set({ stale: 1 }).where('shop_id', '=', shop.shopId).execute();
    await insertTx(h, shop.shopId, [{ createdAt: bkk('2026-11-11T03:00:00'), status: 'FRAUD', source: 'LINE' }]);
    const thRows = parse((await get('/api/dashboard/transactions/export?format=csv&lang=th', shop)).rawPayload, {
      bom: true,
      columns: true,
    }) as Array<Record<string, string>>;
    const col = (key: string, lang: 'th' | 'en') => EXPORT_COLUMNS.find((c) => c.key === key)![lang];
    expect(thRows[0]![col('statusLabel', 'th')]).toBe(STATUS_WORDS.FRAUD.th);
    expect(thRows[1]![col('statusLabel', 'th')]).toBe(`${STALE_WORD.th} · ${STATUS_WORDS.SUCCESS.th}`);
    expect(thRows[1]![col('stale', 'th')]).toBe(STALE_WORD.th);
    expect(thRows[1]![col('bankName', 'th')]).toBe('ธนาคารกสิกรไทย');
    expect(thRows[1]![col('source', 'th')]).toBe('หน้าเว็บ');
    expect(thRows[1]![col('environment', 'th')]).toBe('ใช้งานจริง');
    const enRows = parse((await get('/api/dashboard/transactions/export?format=csv&lang=en', shop)).rawPayload, {
      bom: true,
      columns: true,
    }) as Array<Record<string, string>>;
    expect(enRows[1]).toMatchObject({
      [col('bankName', 'en')]: 'Kasikornbank',
      [col('source', 'en')]: 'Dashboard',
      [col('environment', 'en')]: 'Live',
    });
    // The bank column is wide enough for the longest Thai bank name (combining marks take no room).
    const visible = (t: string) => t.replace(/\p{M}/gu, '').length;
    const longest = Math.max(...THAI_BANKS.map((b) => Math.max(visible(b.nameTh), visible(b.nameEn))));
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await get('/api/dashboard/transactions/export?format=xlsx', shop)).rawPayload as unknown as ArrayBuffer);
    const bankCol = EXPORT_COLUMNS.findIndex((c) => c.key === 'bankName') + 1;
    expect(wb.worksheets[0].getColumn(bankCol).width).toBeGreaterThanOrEqual(longest);
  });

  it('refusals come in the error envelope before any file, and are not logged as exports', async () => {
    const before = (await h.c.audit.list(owner.shopId)).filter((a) => a.action === 'transactions.export').length;
    const cases: Array<[string, number, string]> = [
      ['/api/dashboard/transactions/export?format=pdf', 400, 'VALIDATION_ERROR'],
      ['/api/dashboard/transactions/export', 400, 'VALIDATION_ERROR'],
      ['/api/dashboard/transactions/export?format=csv&from=2026-11-11T00:00:00Z&to=2026-11-10T00:00:00Z', 400, 'INVALID_RANGE'],
      ['/api/dashboard/transactions/export?format=csv&amountMin=10&amountMax=5', 400, 'INVALID_RANGE'],
      ['/api/dashboard/transactions/export?format=csv&amountMin=-1', 400, 'VALIDATION_ERROR'],
      ['/api/dashboard/transactions/export?format=csv&amountMin=1e309', 400, 'VALIDATION_ERROR'],
      ['/api/dashboard/transactions/export?format=csv&cursor=abc', 400, 'VALIDATION_ERROR'],
      ['/api/dashboard/transactions/export?format=csv&lang=de', 400, 'VALIDATION_ERROR'],
    ];
    for (const [url, status, code] of cases) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(status);
      expect(res.headers['content-type'], url).toMatch(/application\/json/);
      expect(res.json(), url).toMatchObject({ success: false, statusCode: status, code });
    }
    const anon = await get('/api/dashboard/transactions/export?format=csv', null);
    expect(anon.statusCode).toBe(401);
    expect(anon.json()).toMatchObject({ success: false, statusCode: 401, code: expect.any(String) });
    expect((await h.c.audit.list(owner.shopId)).filter((a) => a.action === 'transactions.export').length).toBe(before);
  });

  // The list reads an hour-only offset (+07) and a leap second (both RFC 3339, as the OpenAPI document
  // says); the export refused the same bounds as "not an ISO 8601 date-time".
  it('the export takes the bounds the list takes: an hour-only offset and a leap second', async () => {
    const q = `from=${encodeURIComponent('2026-11-01T00:00:00+07')}&to=${encodeURIComponent('2026-11-30T23:59:60Z')}`;
    const list = await get(`/api/dashboard/transactions?${q}`);
    expect(list.statusCode).toBe(200);
    const res = await get(`/api/dashboard/transactions/export?format=csv&${q}`);
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/csv/);
    const bad = await get(`/api/dashboard/transactions/export?format=csv&from=${encodeURIComponent('2026-11-01T00:00:00+25')}`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('the transactions list searches by clientRef and amount range', async () => {
    const byRef = (await get('/api/dashboard/transactions?clientRef=ORD-0999')).json().data.items;
    expect(byRef.map((t: { clientRef: string }) => t.clientRef)).toEqual(['ORD-0999']);
    const ranged = (await get('/api/dashboard/transactions?amountMin=99&amountMax=1234.50')).json().data.items;
    expect(ranged.map((t: { amount: number }) => t.amount)).toEqual([1234.5, 99, 700]);
    expect(
      (await get('/api/dashboard/transactions?amountMin=99.01&amountMax=1234.49'))
        .json()
        .data.items.map((t: { amount: number }) => t.amount),
    ).toEqual([700]);
    expect((await get('/api/dashboard/transactions?clientRef=OTHER-1')).json().data.items).toEqual([]);
    expect((await get('/api/dashboard/transactions?amountMin=abc')).statusCode).toBe(400);
  });
}
