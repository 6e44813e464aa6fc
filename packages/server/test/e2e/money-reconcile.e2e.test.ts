/**
 * Issue 21 in Debian's Chromium: a day of slips from six sending banks into one KBANK account, checked
 * through the public API against the sandbox bank (mismatches under and over, a stale slip, a duplicate,
 * a replay, a transfer to another account, clientRefs and a sender name that would be spreadsheet
 * formulas). At 1280x800 and 390x844, in Thai and English: the money card has one row per payee account,
 * received equals the sum of the genuine transfers, stopped holds none of it, the stale slip is marked in
 * the card, the list, the detail and the export, a duplicate shows the first record's money, the first
 * results show on a phone's first screen, and the CSV parsed back has no formula cell. Screenshots go to
 * docs/screens/ with SLIPCHECK_UPDATE_SCREENS=1 (test-output/screenshots/ otherwise).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import { MONEY_WORDS, STALE_WORD } from '@slipcheck/sdk';
import type { Container } from '../../src/container.js';
import { EXPORT_COLUMNS } from '../../src/modules/reports/reports-export.js';
import { startSandbox } from '../helpers/sandbox.js';
import { th } from '../../../web/src/i18n/th.js';
import { en } from '../../../web/src/i18n/en.js';
import { translate } from '../../../web/src/i18n/translate.js';
import { warnIfNoChromium, HAS_CHROMIUM } from '../helpers/browser.js';
import { closeInOrder, ensureWebBuilt, startServedApp } from '../helpers/served-app.js';
import { baht, go as goIn, ownerSignedIn, PAYEE_ACCOUNT as PAYEE, PAYEE_HOLDER, resize, signUpShopWithKey } from './money-e2e-kit.js';

warnIfNoChromium('money reconcile e2e');

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../../../..');
const SHOTS =
  process.env.SLIPCHECK_UPDATE_SCREENS === '1' ? path.join(REPO, 'docs/screens') : path.resolve(HERE, '../../test-output/screenshots');
const EMAIL = `money+${Date.now()}@example.com`;
const RISKY = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

interface Made {
  id: string;
  transRef: string;
  satang: number;
  status: string;
  stale: boolean;
  cached: boolean;
  clientRef: string;
  errorCode: string | null;
  printedSatang: number | null;
}

describe.skipIf(!HAS_CHROMIUM)('money view reconciles with the bank statement (Chromium)', { timeout: 180_000 }, () => {
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let c: Container;
  let shopId: string;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let dataDir: string;
  let apiKey = '';
  const made: Made[] = [];

  async function verify(o: {
    bank: string;
    satang: number;
    clientRef: string;
    expect?: string;
    daysOld?: number;
    receiver?: string;
    senderName?: string;
    again?: Made;
    sameBytes?: Buffer;
    /** The sandbox's edited render: the picture prints another amount than the transfer's. */
    edit?: string;
  }) {
    let transRef = o.again?.transRef;
    if (!transRef) {
      transRef = (
        await bank.register({
          sendingBank: o.bank,
          amount: o.satang / 100,
          sender: { name: o.senderName ?? 'นาย สมชาย ใจดี', account: '4081234567' },
          receiver: { name: PAYEE_HOLDER, account: o.receiver ?? PAYEE, bankCode: '004' },
          ...(o.daysOld ? { transDate: new Date(Date.now() - o.daysOld * 86_400_000).toISOString() } : {}),
        })
      ).transRef;
    }
    const img = o.sameBytes ?? (await bank.slip(transRef, 'clean', o.again ? 'jpg' : 'png', o.edit ? { edit: o.edit } : {}));
    const q = new URLSearchParams({ clientRef: o.clientRef, ...(o.expect ? { amount: o.expect } : {}) });
    const res = await fetch(`${base}/api/v1/verify?${q}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/octet-stream' },
      body: new Uint8Array(img),
    });
    expect(res.status).toBe(200);
    const d = (
      (await res.json()) as {
        data: { id: string; status: string; stale: boolean; cached: boolean; errorCode: string | null; printedAmount: number | null };
      }
    ).data;
    const m: Made = {
      id: d.id,
      transRef,
      satang: o.satang,
      status: d.status,
      stale: d.stale,
      cached: d.cached,
      clientRef: o.clientRef,
      errorCode: d.errorCode,
      printedSatang: d.printedAmount === null ? null : Math.round(d.printedAmount * 100),
    };
    made.push(m);
    return { m, img };
  }

  const go = (route: string) => goIn(page, route);

  beforeAll(async () => {
    ensureWebBuilt();
    fs.mkdirSync(SHOTS, { recursive: true });
    bank = await startSandbox();
    // The printed-amount reader on, as in production (the default): the edited slip below needs it.
    ({ c, app, base, dataDir } = await startServedApp(
      bank.url,
      { SLIP_EDIT_MODE: 'reject' },
      { prefix: 'slipcheck-money-e2e-', worker: false },
    ));
    ({ apiKey, shopId } = await signUpShopWithKey(app, c, { email: EMAIL, shopName: 'ร้านกาแฟกระทบยอด' }));

    // Six sending banks, each masking the same KBANK account its own way.
    const first = await verify({ bank: '002', satang: 120_00, clientRef: '=HYPERLINK("http://evil.example/x","open")' });
    await verify({ bank: '004', satang: 250_50, clientRef: '=1+2' });
    await verify({ bank: '006', satang: 99_00, clientRef: '@SUM(1+1)' });
    await verify({ bank: '014', satang: 1_000_00, clientRef: '+66812345678' });
    await verify({ bank: '025', satang: 45_25, clientRef: '-2+3', senderName: '=1+2 นาย แฮก' });
    await verify({ bank: '011', satang: 300_00, clientRef: 'ORD-6' });
    await verify({ bank: '014', satang: 500_00, expect: '550', clientRef: 'ORD-UNDER' });
    await verify({ bank: '002', satang: 640_00, expect: '600', clientRef: 'ORD-OVER' });
    await verify({ bank: '006', satang: 77_00, daysOld: 3, clientRef: 'ORD-STALE' });
    await verify({ bank: '002', satang: 120_00, clientRef: 'ORD-DUP', again: first.m });
    // A replay is the identical request (same image and clientRef, no amount): the first record again.
    await verify({ bank: '002', satang: 120_00, clientRef: first.m.clientRef, sameBytes: first.img });
    await verify({ bank: '004', satang: 60_00, receiver: '5550001111', clientRef: 'ORD-ELSEWHERE' });
    // An edited slip: the bank moved 100.00 into the shop's account, the picture says more.
    await verify({ bank: '014', satang: 100_00, clientRef: 'ORD-EDITED', edit: 'add' });
    expect(made.map((m) => m.status)).toEqual([
      ...Array(6).fill('SUCCESS'),
      'AMOUNT_MISMATCH',
      'AMOUNT_MISMATCH',
      'SUCCESS',
      'DUPLICATE',
      'SUCCESS',
      'RECEIVER_MISMATCH',
      'FRAUD',
    ]);
    expect(made[12]!.errorCode).toBe('EDITED_SLIP');
    expect(made[12]!.printedSatang).toBeGreaterThan(100_00);
    expect(made[8]!.stale).toBe(true);
    expect(made[10]!.cached).toBe(true); // the replay is the first record again, not a new payment

    ({ browser, ctx, page } = await ownerSignedIn(base, EMAIL, { viewport: { width: 1280, height: 800 }, acceptDownloads: true }));
  }, 240_000);

  afterAll(() => closeInOrder([ctx, browser, app, c, bank], dataDir), 60_000);

  // Records, not answers: the replay is not a record of its own.
  const records = () => made.filter((m) => !m.cached);
  // The edited slip's real transfer reached the shop's account too: it is on the bank statement.
  const genuine = () => records().filter((m) => m.status === 'SUCCESS' || m.status === 'AMOUNT_MISMATCH' || m.errorCode === 'EDITED_SLIP');

  for (const lang of ['th', 'en'] as const) {
    const t = lang === 'th' ? th : en;
    const w = MONEY_WORDS[lang];
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      it(`${lang} ${width}x${height}: one row per account, received = genuine transfers, stopped holds none of it, stale marked`, async () => {
        await page.getByRole('button', { name: lang === 'th' ? 'ไทย' : 'EN' }).click();
        await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(lang);
        await resize(page, width, height);
        await go('/');
        const card = page.locator('section.card').filter({ has: page.getByTestId('received-total') });
        const received = genuine().reduce((s, m) => s + m.satang, 0);
        expect(received).toBe(120_00 + 250_50 + 99_00 + 1_000_00 + 45_25 + 300_00 + 500_00 + 640_00 + 77_00 + 100_00);
        await expect.poll(() => card.getByTestId('received-total').innerText()).toBe(baht(received));
        // One account: one row, labelled with the bank, last digits and holder as the shop entered them.
        const payeeRows = card.getByTestId('payee-row');
        expect(await payeeRows.count()).toBe(1);
        const row = await payeeRows.first().innerText();
        expect(row).toContain('••••6609');
        expect(row).toContain(lang === 'th' ? 'ธนาคารกสิกรไทย' : 'Kasikornbank');
        expect(row).toContain(baht(received));
        const text = await card.innerText();
        for (const heading of [w.byPayee, w.byChannel, w.stopped]) expect(text).toContain(heading);
        // Received splits into verified, under, over, stale and edited; the stale slip counts only there.
        expect(await card.getByTestId('verified-row').innerText()).toContain(baht(received - 500_00 - 640_00 - 77_00 - 100_00));
        expect(await card.getByTestId('edited-row').innerText()).toContain(baht(100_00));
        expect(await card.getByTestId('edited-row').innerText()).toContain(w.edited);
        // Stopped as forged: what the edited picture printed beyond the 100.00 the bank moved.
        expect(await card.getByTestId('stopped-forged').innerText()).toContain(baht(made[12]!.printedSatang! - 100_00));
        expect(await card.getByTestId('under-row').innerText()).toContain(baht(500_00));
        expect(await card.getByTestId('under-row').innerText()).toContain(baht(50_00));
        expect(await card.getByTestId('over-row').innerText()).toContain(baht(640_00));
        expect(await card.getByTestId('over-row').innerText()).toContain(baht(40_00));
        expect(await card.getByTestId('stale-row').innerText()).toContain(STALE_WORD[lang]);
        expect(await card.getByTestId('stale-row').innerText()).toContain(baht(77_00));
        // The stale slip's transfer is three days old: the card says that part of today's received is on an
        // earlier day's statement, and no longer that the whole of it matches today's bank app.
        expect(await card.getByTestId('received-earlier').innerText()).toBe(
          translate(lang, 'reports.earlier', { money: baht(77_00), n: 1 }),
        );
        expect(text).toContain(translate(lang, 'reports.receivedCountChecked', { n: genuine().length }));
        // Stopped: the duplicate's money and the other account's, nothing that reached the shop.
        expect(await card.getByTestId('stopped-duplicate').innerText()).toContain(baht(120_00));
        expect(await card.getByTestId('stopped-elsewhere').innerText()).toContain(baht(60_00));
        const stopped = await card.getByTestId('stopped').innerText();
        for (const m of genuine().filter((x) => x.status === 'AMOUNT_MISMATCH')) expect(stopped).not.toContain(baht(m.satang));
        const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
        expect(o.scroll).toBeLessThanOrEqual(o.inner);
        await card.screenshot({ path: path.join(SHOTS, `money-card-${lang}${width < 600 ? '' : '-wide'}.png`) });

        // The list: first results on the first screen of a phone; the stale slip marked; the duplicate shows its money.
        await go('/transactions');
        await page.locator('main .tx-list li').first().waitFor();
        const firstTop = await page
          .locator('main .tx-list li')
          .first()
          .evaluate((el) => el.getBoundingClientRect().top);
        // On a phone (the 390x844) the filters fold away; a wide screen has room for them above.
        if (width < 600) expect(firstTop, 'first result on the first screen').toBeLessThan(height - 60);
        const staleRow = page.locator('main .tx-list li').filter({ hasText: made[8]!.transRef });
        expect(await staleRow.locator('[data-stale="true"]').innerText()).toContain(STALE_WORD[lang]);
        // Its transfer is three days old: the row says when the bank moved it (the day it is on in the bank app).
        const staleRecord = await c.transactions.get(shopId, made[8]!.id);
        expect(await staleRow.getByTestId('transferred-on').innerText()).toBe(
          translate(lang, 'tx.transferredOn', {
            time: new Intl.DateTimeFormat(lang === 'th' ? 'th-TH' : 'en-GB', {
              timeZone: 'Asia/Bangkok',
              dateStyle: 'medium',
              timeStyle: 'short',
            }).format(new Date(staleRecord.transDate!)),
          }),
        );
        // A slip checked the day it was made says nothing more.
        expect(await page.locator('main .tx-list li').filter({ hasText: made[0]!.transRef }).getByTestId('transferred-on').count()).toBe(0);
        const dupRow = page
          .locator('main .tx-list li')
          .filter({ hasText: made[9]!.transRef })
          .filter({ has: page.locator('[data-status="DUPLICATE"]') });
        await expect.poll(() => dupRow.getByTestId('first-use').count()).toBe(1);
        expect(await dupRow.innerText()).toContain('120.00');
        expect(await dupRow.innerText()).not.toContain(t['tx.unknownSender']);
        // Mismatches say which way and by how much.
        const diffOf = (m: Made) =>
          page.locator('main .tx-list li').filter({ hasText: m.transRef }).getByTestId('mismatch-diff').innerText();
        expect(await diffOf(made[6]!)).toBe(`${w.under} ${baht(50_00)}`);
        expect(await diffOf(made[7]!)).toBe(`${w.over} ${baht(40_00)}`);
        if (width < 600) await page.screenshot({ path: path.join(SHOTS, `transactions-phone-${lang}.png`) });

        // The CSV of the list: parsed back, no cell is a formula; the stale slip says so.
        const toggle = page.locator('.tx-tools-toggle');
        if (await toggle.isVisible()) await toggle.click();
        const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: t['reports.exportCsv'] }).click()]);
        expect(dl.suggestedFilename()).toMatch(/^slipcheck-\d{4}-\d{2}-\d{2}\.csv$/);
        const rows = parse(fs.readFileSync((await dl.path())!), { bom: true, columns: true, relax_quotes: true }) as Array<
          Record<string, string>
        >;
        expect(rows).toHaveLength(records().length);
        for (const r of rows) for (const [k, v] of Object.entries(r)) expect(RISKY.test(v), `${k}: ${JSON.stringify(v)}`).toBe(false);
        const col = (key: string) => EXPORT_COLUMNS.find((x) => x.key === key)![lang];
        const staleCsv = rows.find((r) => r[col('transRef')] === made[8]!.transRef)!;
        expect(staleCsv[col('stale')]).toBe(STALE_WORD[lang]);
        expect(staleCsv[col('statusLabel')]).toContain(STALE_WORD[lang]);
        if (await toggle.isVisible()) await toggle.click();

        // The stale slip's card: the pill says old slip.
        await go(`/transactions/${made[8]!.id}`);
        expect(await page.locator('article.result [data-stale="true"]').innerText()).toContain(STALE_WORD[lang]);
        if (width < 600) await page.locator('article.result').screenshot({ path: path.join(SHOTS, `result-card-stale-${lang}.png`) });
        await go(`/transactions/${made[9]!.id}`);
        await expect.poll(() => page.locator('article.result').getByTestId('first-use').count()).toBe(1);
        expect(await page.locator('article.result').innerText()).toContain('120.00');
      });
    }
  }
});
