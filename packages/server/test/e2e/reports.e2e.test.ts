/**
 * The owner's money view in Debian's Chromium: the real service (SQLite, inline worker) on loopback, the
 * sandbox bank as checker, slips verified through the public API (SUCCESS, a duplicate, an amount
 * mismatch), then the overview and transactions screens at 360 and 390 px in Thai and English: the money
 * card shows the exact verified THB, nothing is wider than the screen, clientRef and amount-range
 * searches filter the list, and the CSV and XLSX buttons download files that parse back with the
 * language's headers and the list's rows. Money-card screenshots go to docs/screens/ with
 * SLIPCHECK_UPDATE_SCREENS=1 (test-output/screenshots/ otherwise).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../src/container.js';
import { EXPORT_COLUMNS, exportHeader } from '../../src/modules/reports/reports-export.js';
import { summarySettingsOf } from '../../src/modules/reports/reports-summary.js';
import { startSandbox } from '../helpers/sandbox.js';
import { th } from '../../../web/src/i18n/th.js';
import { en } from '../../../web/src/i18n/en.js';
import { translate } from '../../../web/src/i18n/translate.js';
import { thaiContext, warnIfNoChromium, HAS_CHROMIUM } from '../helpers/browser.js';
import { closeInOrder, ensureWebBuilt, startServedApp } from '../helpers/served-app.js';
import { baht, go as goIn, OWNER_PASSWORD, ownerSignedIn, resize, signUpShopWithKey } from './money-e2e-kit.js';

warnIfNoChromium('reports e2e');

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../../../..');
const SHOTS = path.resolve(HERE, '../../test-output/screenshots');
const CARD_SHOTS = process.env.SLIPCHECK_UPDATE_SCREENS === '1' ? path.join(REPO, 'docs/screens') : SHOTS;
const EMAIL = `reports+${Date.now()}@example.com`;

interface Made {
  transRef: string;
  /** The transfer's amount: the money the check let in or kept out. */
  satang: number;
  /** The record's own amount, as the API answered it (a duplicate repeats its first check's). */
  recordSatang: number | null;
  clientRef: string;
  status: string;
}

describe.skipIf(!HAS_CHROMIUM)('money view end to end (Chromium)', { timeout: 120_000 }, () => {
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let c: Container;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let dataDir: string;
  const made: Made[] = [];
  let shopId = '';

  /** One slip through the real pipeline: the sandbox bank's transfer, its slip image, POST /api/v1/verify. */
  async function verify(apiKey: string, amountBaht: string, clientRef: string, opts: { expect?: string; again?: Made } = {}) {
    const transRef = opts.again?.transRef ?? (await bank.register({ amount: Number(amountBaht) })).transRef;
    // The duplicate is the same transfer as another picture (JPEG): the same bytes would be a cached replay.
    const img = await bank.slip(transRef, 'clean', opts.again ? 'jpg' : 'png');
    const q = new URLSearchParams({ clientRef, ...(opts.expect ? { amount: opts.expect } : {}) });
    const res = await fetch(`${base}/api/v1/verify?${q}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/octet-stream' },
      body: img,
    });
    expect(res.status).toBe(200);
    const data = ((await res.json()) as { data: { status: string; amount: number | null } }).data;
    // Exact satang from the decimal text: no float in the expected sums either.
    const [b, s = ''] = amountBaht.split('.');
    const satang = Number(b) * 100 + Number(s.padEnd(2, '0'));
    const m = { transRef, satang, recordSatang: data.amount === null ? null : satang, clientRef, status: data.status };
    made.push(m);
    return m;
  }

  const go = (route: string) => goIn(page, route);
  const atWidth = (width: number) => resize(page, width, 844);

  async function expectNoOverflow(where: string) {
    const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    expect(o.scroll, `${where}: horizontal overflow`).toBeLessThanOrEqual(o.inner);
  }

  const listRefs = async () => (await page.locator('main .tx-list .tx-ref').allInnerTexts()).map((s) => s.trim()).sort();

  /** On a phone the filters and downloads fold behind one button (issue 21): open them when folded. */
  async function openTools() {
    const toggle = page.locator('.tx-tools-toggle');
    if ((await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  }

  async function search(lang: 'th' | 'en', f: { clientRef?: string; amountMin?: string; amountMax?: string }) {
    const t = lang === 'th' ? th : en;
    await openTools();
    const form = page.locator('form.filters');
    await form.getByLabel(t['reports.clientRef']).fill(f.clientRef ?? '');
    await form.getByLabel(t['reports.amountMin']).fill(f.amountMin ?? '');
    await form.getByLabel(t['reports.amountMax']).fill(f.amountMax ?? '');
    await form.getByRole('button', { name: t['tx.apply'] }).click();
  }

  /**
   * Clicks a download button. The file must come as the browser's own download of a one-time link (the
   * service streams it to disk, with the browser's progress), not as a blob the page assembled in memory;
   * the link holds no access token and is spent once used.
   */
  async function download(label: string): Promise<Buffer> {
    await openTools();
    const at = page.url();
    const [dl, asked] = await Promise.all([
      page.waitForEvent('download'),
      page.waitForRequest((r) => r.url().startsWith(`${base}/api/dashboard/`) && r.method() === 'POST'),
      page.getByRole('button', { name: label }).click(),
    ]);
    const link = new URL(dl.url());
    expect(`${link.origin}${link.pathname}`, 'a download of the service, not a blob: URL').toBe(
      `${base}/api/dashboard/transactions/export/download`,
    );
    expect([...link.searchParams.keys()].sort()).toEqual(['shop', 'ticket']);
    // The ticket was asked for with the bearer token; the token itself is nowhere in the link.
    expect(asked.url()).toBe(`${base}/api/dashboard/transactions/export/ticket`);
    const token = /^Bearer (\S+)$/.exec((await asked.allHeaders()).authorization ?? '')?.[1];
    expect(token, 'the ticket request carries the bearer token').toBeTruthy();
    expect(dl.url()).not.toContain(token!);
    const file = await dl.path();
    expect(file, 'download saved').toBeTruthy();
    expect(page.url(), 'the page stays where it was').toBe(at);
    // Single use: the same link fetched again is refused in the error envelope.
    const again = await fetch(dl.url());
    expect(again.status).toBe(404);
    expect(await again.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    return fs.readFileSync(file!);
  }

  beforeAll(async () => {
    ensureWebBuilt();
    fs.mkdirSync(SHOTS, { recursive: true });
    fs.mkdirSync(CARD_SHOTS, { recursive: true });
    bank = await startSandbox();
    ({ c, app, base, dataDir } = await startServedApp(bank.url, {}, { prefix: 'slipcheck-reports-e2e-', worker: false }));

    const shop = await signUpShopWithKey(app, c, { email: EMAIL, shopName: 'ร้านกาแฟยอดเงิน' });
    shopId = shop.shopId;
    const apiKey = shop.apiKey;

    const a = await verify(apiKey, '1250.50', 'ORD-1001');
    await verify(apiKey, '99.75', 'ORD-1002');
    await verify(apiKey, '3000.01', 'ORD-1003');
    await verify(apiKey, '1250.50', 'ORD-1004', { again: a });
    await verify(apiKey, '500', 'ORD-1005', { expect: '600.00' });
    expect(made.map((m) => m.status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS', 'DUPLICATE', 'AMOUNT_MISMATCH']);

    ({ browser, ctx, page } = await ownerSignedIn(base, EMAIL, { viewport: { width: 390, height: 844 }, acceptDownloads: true }));
  }, 180_000);

  afterAll(() => closeInOrder([ctx, browser, app, c, bank], dataDir), 60_000);

  it('settings: the shop form and the daily-summary form load, save and say so (one saved-form hook for both)', async () => {
    await go('/settings');
    const summary = page.locator('form', { has: page.getByLabel(th['reports.summaryTime']) });
    const shop = page.locator('form', { has: page.getByLabel(th['signup.shopName']) });
    await expect.poll(() => shop.getByLabel(th['signup.shopName']).inputValue()).toBe('ร้านกาแฟยอดเงิน');
    await expect.poll(() => summary.getByLabel(th['reports.summaryTime']).inputValue()).toBe('21:00');
    await summary.getByLabel(th['reports.summaryTime']).fill('20:30');
    await summary.getByRole('button', { name: th['common.save'] }).click();
    await summary.getByText(th['common.saved']).waitFor();
    expect(await shop.getByText(th['common.saved']).count()).toBe(0);
    await expect.poll(async () => summarySettingsOf(await c.shops.get(shopId)).time).toBe('20:30');
    await shop.getByLabel(th['signup.shopName']).fill('ร้านกาแฟยอดเงิน สาขา 2');
    await shop.getByRole('button', { name: th['common.save'] }).click();
    await shop.getByText(th['common.saved']).waitFor();
    await expect.poll(async () => (await c.shops.get(shopId)).name).toBe('ร้านกาแฟยอดเงิน สาขา 2');
    await expectNoOverflow('settings');
  });

  it("a link from the daily summary or an alert mail opens its page after sign-in, not the overview (and only this site's pages)", async () => {
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Bangkok' }).format(new Date());
    const rec = await c.db.selectFrom('transactions').select('id').where('status', '=', 'AMOUNT_MISMATCH').executeTakeFirstOrThrow();
    // A phone that is not signed in: the daily summary's link to the day, an alert's link to its record.
    for (const [link, heading, url] of [
      [`/transactions?from=${day}&to=${day}`, th['tx.title'], `/transactions?from=${day}&to=${day}`],
      [`/transactions/${rec.id}`, th['tx.detailTitle'], `/transactions/${rec.id}`],
      // Only a page of this site: another address given as the way back lands on the overview.
      ['/login?next=%2F%2Fevil.example%2Fx', th['overview.title'], '/'],
    ] as const) {
      const other = await thaiContext(browser, { viewport: { width: 360, height: 780 } });
      try {
        const p = await other.newPage();
        await p.goto(`${base}${link}`);
        await p.getByRole('heading', { level: 1, name: th['auth.loginTitle'] }).waitFor();
        await p.getByLabel('อีเมล').fill(EMAIL);
        await p.getByLabel('รหัสผ่าน').fill(OWNER_PASSWORD);
        await p.getByRole('button', { name: th['auth.login'], exact: true }).click();
        await p.getByRole('heading', { level: 1, name: heading }).waitFor();
        expect(p.url(), link).toBe(`${base}${url}`);
        if (link.includes('from=')) expect(await p.locator('.tx-tools-toggle').innerText()).toContain(th['tx.filtersOn']);
      } finally {
        await other.close();
      }
    }
  });

  it('a day typed with its Buddhist-era year (as the list prints it) finds that day, and the field then shows the year the calendar uses', async () => {
    await page.getByRole('button', { name: 'ไทย', exact: true }).click();
    await go('/transactions');
    await page.locator('main .tx-list').waitFor();
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Bangkok' }).format(new Date());
    const beDay = `${Number(day.slice(0, 4)) + 543}${day.slice(4)}`;
    // The list prints the Thai year: what an owner reads and then types into the date fields.
    expect(await page.locator('main .tx-list').innerText()).toContain(String(Number(day.slice(0, 4)) + 543));
    await openTools();
    const form = page.locator('form.filters');
    await form.getByLabel(th['tx.from']).fill(beDay);
    await form.getByLabel(th['tx.to']).fill(beDay);
    await form.getByRole('button', { name: th['tx.apply'] }).click();
    await expect.poll(async () => await page.locator('main .tx-list li').count()).toBe(made.length);
    await openTools();
    expect(await form.getByLabel(th['tx.from']).inputValue()).toBe(day);
    expect(await form.getByLabel(th['tx.to']).inputValue()).toBe(day);
    await page.getByRole('button', { name: th['tx.clear'] }).click();
  });

  it('dates or amounts the wrong way round are told beside the field, not answered with "no results"', async () => {
    await page.getByRole('button', { name: 'ไทย', exact: true }).click();
    await go('/transactions');
    await page.locator('main .tx-list').waitFor();
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Bangkok' }).format(new Date());
    const next = new Date(Date.parse(`${day}T12:00:00+07:00`) + 86_400_000).toISOString().slice(0, 10);
    await openTools();
    const form = page.locator('form.filters');
    const field = (label: string) => form.locator('.field', { has: page.getByLabel(label, { exact: true }) });
    await form.getByLabel(th['tx.from']).fill(next);
    await form.getByLabel(th['tx.to']).fill(day);
    await form.getByRole('button', { name: th['tx.apply'] }).click();
    await expect.poll(() => field(th['tx.to']).locator('.field-error').textContent()).toBe(th['tx.toBeforeFrom']);
    expect(await page.locator('main .tx-list li').count()).toBe(made.length);
    await form.getByLabel(th['tx.from']).fill('');
    await form.getByLabel(th['tx.to']).fill('');
    await form.getByLabel(th['reports.amountMin']).fill('1000');
    await form.getByLabel(th['reports.amountMax']).fill('100');
    await form.getByRole('button', { name: th['tx.apply'] }).click();
    await expect.poll(() => field(th['reports.amountMax']).locator('.field-error').textContent()).toBe(th['tx.maxBelowMin']);
    expect(await page.locator('main .tx-list li').count()).toBe(made.length);
    await form.getByLabel(th['reports.amountMin']).fill('');
    await form.getByLabel(th['reports.amountMax']).fill('');
  });

  for (const lang of ['th', 'en'] as const) {
    const t = lang === 'th' ? th : en;

    it(`${lang}: the money card on the overview and the transactions screen shows the exact received THB, at 360 and 390 px without overflow`, async () => {
      await page.getByRole('button', { name: lang === 'th' ? 'ไทย' : 'EN' }).click();
      await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(lang);
      // Received: every genuine transfer into the shop's account (the amount mismatch too); the duplicate is stopped.
      const verified = made.filter((m) => m.status === 'SUCCESS' || m.status === 'AMOUNT_MISMATCH');
      const total = verified.reduce((s, m) => s + m.satang, 0);
      expect(total).toBe(485_026);
      const blocked = made.filter((m) => m.status === 'DUPLICATE').reduce((s, m) => s + m.satang, 0);
      for (const [route, title] of [
        ['/', t['overview.title']],
        ['/transactions', t['tx.title']],
      ] as const) {
        await go(route);
        await page.getByRole('heading', { level: 1, name: title }).waitFor();
        const card = page
          .locator('section, div')
          .filter({ has: page.getByTestId('received-total') })
          .last();
        await expect.poll(() => page.getByTestId('received-total').innerText()).toBe(baht(total));
        const text = await card.innerText();
        expect(text).toContain(translate(lang, 'reports.receivedCount', { n: verified.length }));
        expect(text).toContain(baht(blocked));
        for (const width of [360, 390]) {
          await atWidth(width);
          await expectNoOverflow(`${route} ${lang} @${width}`);
        }
      }
    });

    it(`${lang}: when the download link cannot be had, the page says so in ${lang === 'th' ? 'Thai' : 'English'} at 360 px and starts no download`, async () => {
      await page.getByRole('button', { name: lang === 'th' ? 'ไทย' : 'EN', exact: true }).click();
      await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(lang);
      await go('/transactions');
      await atWidth(360);
      await page.locator('main .tx-list').waitFor();
      const downloads: string[] = [];
      const onDownload = (d: { url(): string }) => downloads.push(d.url());
      page.on('download', onDownload);
      // First the connection drops, then the service refuses (the rate limit): each in the page's words.
      let answer: 'abort' | 'limited' = 'abort';
      await page.route('**/api/dashboard/transactions/export/ticket', (route) =>
        answer === 'abort'
          ? route.abort('internetdisconnected')
          : route.fulfill({
              status: 429,
              headers: { 'Retry-After': '30' },
              json: {
                success: false,
                statusCode: 429,
                code: 'RATE_LIMITED',
                message: 'Too many requests; retry after 30 s',
                retryAfter: 30,
              },
            }),
      );
      try {
        await openTools();
        const bar = page.locator('.export-actions');
        await page.getByRole('button', { name: t['reports.exportCsv'] }).click();
        await expect.poll(() => bar.getByRole('alert').count()).toBe(1);
        expect(await bar.getByRole('alert').innerText()).toBe(t['error.network']);
        expect(await bar.innerText()).toContain(t['reports.exportFailed']);
        await expectNoOverflow(`export refused ${lang}`);
        answer = 'limited';
        await page.getByRole('button', { name: t['reports.exportXlsx'] }).click();
        await expect.poll(() => bar.getByRole('alert').innerText()).toBe(translate(lang, 'error.RATE_LIMITED_wait', { seconds: 30 }));
        expect(await bar.innerText()).toContain(t['reports.exportFailed']);
        if (lang === 'th') expect(await bar.innerText()).not.toContain('Too many requests');
        await page.screenshot({ path: path.join(SHOTS, `reports-export-refused-${lang}-360.png`), fullPage: true });
      } finally {
        await page.unroute('**/api/dashboard/transactions/export/ticket');
        page.off('download', onDownload);
      }
      expect(downloads).toEqual([]);
      // Once the service answers again, the button works and the message goes.
      const csv = await download(t['reports.exportCsv']);
      expect(csv.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
      expect(await page.locator('.export-actions').getByRole('alert').count()).toBe(0);
    });

    it(`${lang}: a result's detail page gives its reason in the page's language, the service's English only for a code it does not know`, async () => {
      await page.getByRole('button', { name: lang === 'th' ? 'ไทย' : 'EN', exact: true }).click();
      await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(lang);
      const reasonRow = page.locator('main .kv > div', { has: page.locator('dt', { hasText: t['tx.errorMessage'] }) }).locator('dd');
      for (const status of ['AMOUNT_MISMATCH', 'DUPLICATE'] as const) {
        const rec = await c.db
          .selectFrom('transactions')
          .select(['id', 'error_code', 'error_message'])
          .where('status', '=', status)
          .executeTakeFirstOrThrow();
        expect(rec.error_message, status).toBeTruthy();
        await go('/transactions');
        await go(`/transactions/${rec.id}`);
        await page.locator('main .result').waitFor();
        await expect.poll(() => reasonRow.innerText(), { message: status }).toBe(t[`error.${status}`]);
        // The service's words are English: on the Thai page not one of them.
        if (lang === 'th') expect(await page.locator('main').innerText(), status).not.toContain(rec.error_message!);
      }
      // A code this dashboard does not know yet (a newer service): its sentence from the service, rather than nothing.
      const rec = await c.db.selectFrom('transactions').select('id').where('status', '=', 'AMOUNT_MISMATCH').executeTakeFirstOrThrow();
      await page.route(`**/api/dashboard/transactions/${rec.id}`, async (route) => {
        const res = await route.fetch();
        const body = (await res.json()) as { data: Record<string, unknown> };
        body.data = { ...body.data, errorCode: 'SOME_NEW_CODE', errorMessage: 'A reason from a newer service.' };
        await route.fulfill({ response: res, json: body });
      });
      try {
        await go('/transactions');
        await go(`/transactions/${rec.id}`);
        await expect.poll(() => reasonRow.innerText()).toBe('A reason from a newer service.');
      } finally {
        await page.unroute(`**/api/dashboard/transactions/${rec.id}`);
      }
    });

    it(`${lang}: searching by clientRef and by amount range filters the list; CSV and XLSX downloads hold the list's rows with ${lang === 'th' ? 'Thai' : 'English'} headers`, async () => {
      await go('/transactions');
      await atWidth(360);
      await page.locator('main .tx-list').waitFor();
      expect(await listRefs()).toEqual(made.map((m) => m.transRef).sort());

      const second = made[1]!;
      await search(lang, { clientRef: second.clientRef });
      await expect.poll(listRefs).toEqual([second.transRef]);
      await expectNoOverflow(`transactions clientRef ${lang}`);

      // 99.75 to 1,250.50 THB: all but the 3,000.01 slip. The duplicate carries its transfer's 1,250.50
      // (repeated from the first check), so a search for that payment finds its re-use too.
      await search(lang, { amountMin: '99.75', amountMax: '1250.50' });
      const inRange = made.filter((m) => m.recordSatang !== null && m.recordSatang >= 9_975 && m.recordSatang <= 125_050);
      expect(inRange.map((m) => m.status)).toEqual(['SUCCESS', 'SUCCESS', 'DUPLICATE', 'AMOUNT_MISMATCH']);
      // Polled like the clientRef search above: the list's items can be counted before every row
      // carries its reference (a full run read one of three).
      await expect.poll(async () => await page.locator('main .tx-list li').count()).toBe(inRange.length);
      await expect.poll(listRefs).toEqual(inRange.map((m) => m.transRef).sort());
      await page.screenshot({ path: path.join(SHOTS, `reports-transactions-range-${lang}-360.png`), fullPage: true });
      await atWidth(390);
      await expectNoOverflow(`transactions amount range ${lang}`);

      // The two export buttons stand apart, and apart from what follows them (they touched the money card).
      await openTools();
      const gaps = await page.evaluate(() => {
        const bar = document.querySelector('.export-actions')!;
        const [csvBtn, xlsxBtn] = Array.from(bar.querySelectorAll('button')).map((b) => b.getBoundingClientRect());
        const next = document.querySelector('.tx-results')!.getBoundingClientRect();
        const sameRow = Math.abs(csvBtn!.top - xlsxBtn!.top) < 1;
        return {
          between: sameRow ? xlsxBtn!.left - csvBtn!.right : xlsxBtn!.top - csvBtn!.bottom,
          below: next.top - Math.max(csvBtn!.bottom, xlsxBtn!.bottom),
        };
      });
      expect(gaps.between, 'space between the export buttons').toBeGreaterThanOrEqual(6);
      expect(gaps.below, 'space between the export buttons and the card below').toBeGreaterThanOrEqual(8);

      const headers = EXPORT_COLUMNS.map((col) => exportHeader(col, lang, 'Asia/Bangkok'));
      const csv = await download(t['reports.exportCsv']);
      expect(csv.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
      const rows = parse(csv, { bom: true, columns: true }) as Array<Record<string, string>>;
      expect(Object.keys(rows[0]!)).toEqual(headers);
      const col = (key: string) => EXPORT_COLUMNS.find((x) => x.key === key)![lang];
      expect(rows.map((r) => r[col('clientRef')]).sort()).toEqual(inRange.map((m) => m.clientRef).sort());
      expect(rows.map((r) => r[col('transRef')]).sort()).toEqual(inRange.map((m) => m.transRef).sort());
      for (const r of rows) {
        const m = inRange.find((x) => x.clientRef === r[col('clientRef')])!;
        expect(r[col('amount')]).toBe(`${Math.floor(m.satang / 100)}.${String(m.satang % 100).padStart(2, '0')}`);
        expect(r[col('status')]).toBe(m.status);
      }

      const xlsx = await download(t['reports.exportXlsx']);
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load(xlsx as unknown as ArrayBuffer);
      const ws = wb.worksheets[0]!;
      expect((ws.getRow(1).values as unknown[]).slice(1)).toEqual(headers);
      const refCol = EXPORT_COLUMNS.findIndex((x) => x.key === 'clientRef') + 1;
      const amountCol = EXPORT_COLUMNS.findIndex((x) => x.key === 'amount') + 1;
      const got: Array<[string, number]> = [];
      for (let i = 2; i <= ws.rowCount; i++)
        got.push([String(ws.getRow(i).getCell(refCol).value), Number(ws.getRow(i).getCell(amountCol).value)]);
      expect(got.sort()).toEqual(inRange.map((m) => [m.clientRef, m.satang / 100] as [string, number]).sort());

      await openTools();
      await page.getByRole('button', { name: t['tx.clear'] }).click();
      await expect.poll(async () => await page.locator('main .tx-list li').count()).toBe(made.length);
    });
  }
});
