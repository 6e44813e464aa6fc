/**
 * Reading order on the dashboard in Debian's Chromium: what a screen reader reads (DOM order) must be
 * what a person sees (top to bottom in the phone's single column), at 360 and 390 px and on a wide
 * screen, Thai and English. The transactions page put its money card under the list on a phone with
 * CSS `order`, so the list a person scrolls to first was read after the whole money card. The real
 * service on loopback (SQLite), a shop with checks of today written as the pipeline writes them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../src/container.js';
import { th } from '../../../web/src/i18n/th.js';
import { en } from '../../../web/src/i18n/en.js';
import { launchChromium, thaiContext, warnIfNoChromium, HAS_CHROMIUM } from '../helpers/browser.js';
import { closeInOrder, ensureWebBuilt, startServedApp } from '../helpers/served-app.js';
import { startSandbox } from '../helpers/sandbox.js';
import { transactionRow } from '../helpers/records.js';

warnIfNoChromium('reading order e2e');

const PASSWORD = 'correct horse battery staple';
const SHOTS = path.resolve(import.meta.dirname, '../../test-output/screenshots');

/**
 * Siblings under each container, in DOM order, that are drawn above the sibling before them: in a
 * single column the next thing read must never be drawn higher up. Hidden and out-of-flow elements
 * (sr-only live regions, sticky bars) are left out.
 */
function readingOrderProblems(p: Page, containers: string) {
  return p.evaluate((sel) => {
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${(el.textContent ?? '').trim().slice(0, 30)}"`;
    const problems: string[] = [];
    for (const container of Array.from(document.querySelectorAll(sel))) {
      const kids = Array.from(container.children).filter((el) => {
        const r = el.getBoundingClientRect();
        const pos = getComputedStyle(el).position;
        return r.height > 0 && r.width > 1 && pos !== 'absolute' && pos !== 'fixed';
      });
      for (let i = 1; i < kids.length; i++) {
        const before = kids[i - 1].getBoundingClientRect();
        const after = kids[i].getBoundingClientRect();
        if (after.bottom <= before.top + 1) problems.push(`${name(kids[i])} is read after ${name(kids[i - 1])} but drawn above it`);
      }
    }
    return problems;
  }, containers);
}

describe.skipIf(!HAS_CHROMIUM)('dashboard reading order matches what is drawn (Chromium)', { timeout: 120_000 }, () => {
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let c: Container;
  let app: FastifyInstance;
  let base: string;
  let dataDir: string;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  const email = `owner+order${Date.now()}@example.com`;

  beforeAll(async () => {
    ensureWebBuilt();
    fs.mkdirSync(SHOTS, { recursive: true });
    bank = await startSandbox();
    ({ c, app, base, dataDir } = await startServedApp(bank.url, {}, { prefix: 'slipcheck-reading-order-' }));
    const signup = await app.inject({
      method: 'POST',
      url: '/api/dashboard/auth/signup',
      payload: { email, password: PASSWORD, shopName: 'ร้านลำดับการอ่าน', planCode: 'STARTER' },
    });
    expect(signup.statusCode).toBe(201);
    const shopId: string = signup.json().data.shop.id;
    const now = Date.now();
    await c.db
      .insertInto('transactions')
      .values(Array.from({ length: 4 }, (_, i) => transactionRow(shopId, new Date(now - i * 60_000), 'SUCCESS', { source: 'DASHBOARD' })))
      .execute();
    browser = await launchChromium();
    ctx = await thaiContext(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    page = await ctx.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${base}/login`);
    await page.getByLabel('อีเมล').fill(email);
    await page.getByLabel('รหัสผ่าน').fill(PASSWORD);
    await page.getByRole('button', { name: 'เข้าสู่ระบบ', exact: true }).click();
    await page.waitForURL((u) => !u.pathname.startsWith('/login'));
  }, 120_000);

  afterAll(() => closeInOrder([ctx, browser, app, c, bank], dataDir), 60_000);

  it('transactions: on a phone the list comes before the money card for a screen reader too, as it is drawn; on a wide screen both agree as well', async () => {
    await page.goto(`${base}/transactions`);
    for (const width of [360, 390, 1280]) {
      await page.setViewportSize({ width, height: width < 600 ? 844 : 860 });
      await page.waitForFunction((w) => window.innerWidth === w, width);
      for (const lang of ['th', 'en'] as const) {
        const words = lang === 'th' ? th : en;
        const where = `@${width} ${lang}`;
        await page.getByRole('button', { name: lang === 'th' ? 'ไทย' : 'EN', exact: true }).click();
        await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(lang);
        const card = page.getByRole('heading', { name: words['reports.totalsTitle'] });
        const list = page.locator('main ul.tx-list');
        await card.waitFor();
        await list.waitFor();
        await page.getByTestId('received-total').waitFor();
        const order = await page.evaluate(() => {
          const l = document.querySelector('main ul.tx-list')!;
          const heading = Array.from(document.querySelectorAll('main h2, main h3')).find((h) =>
            h.closest('.card')?.querySelector('[data-testid="received-total"]'),
          )!;
          return {
            listReadFirst: !!(l.compareDocumentPosition(heading) & Node.DOCUMENT_POSITION_FOLLOWING),
            listDrawnFirst: l.getBoundingClientRect().top < heading.getBoundingClientRect().top,
          };
        });
        // A phone shows the list first (the page is for it); the reading order must say the same.
        if (width < 600) expect(order.listDrawnFirst, where).toBe(true);
        expect(order.listReadFirst, `${where}: DOM order vs drawn order`).toBe(order.listDrawnFirst);
        if (width < 600) expect(await readingOrderProblems(page, 'main, main .tx-layout'), where).toEqual([]);
        // The accessibility tree, as a screen reader walks it: the list's first row before the money card's heading.
        const tree = await page.locator('main').ariaSnapshot();
        const firstRow = tree.search(/- list[^\n]*\n\s+- listitem/);
        const heading = tree.indexOf(`heading "${words['reports.totalsTitle']}"`);
        expect(firstRow, `${where}: no list in the tree`).toBeGreaterThan(-1);
        expect(heading, `${where}: no money card in the tree`).toBeGreaterThan(-1);
        expect(firstRow < heading, `${where}: list read before the money card`).toBe(order.listDrawnFirst);
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: path.join(SHOTS, `reading-order-transactions-${lang}-${width}.png`), fullPage: true });
      }
    }
  });

  it('the home page (overview) reads in the order it is drawn at 360 and 390 px: its money card is first on screen and first read', async () => {
    await page.goto(`${base}/`);
    for (const width of [360, 390]) {
      await page.setViewportSize({ width, height: 844 });
      await page.waitForFunction((w) => window.innerWidth === w, width);
      for (const lang of ['th', 'en'] as const) {
        await page.getByRole('button', { name: lang === 'th' ? 'ไทย' : 'EN', exact: true }).click();
        await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(lang);
        await page.getByTestId('received-total').waitFor();
        await page.locator('main ul.tx-list').waitFor();
        expect(await readingOrderProblems(page, 'main, main .grid-3'), `@${width} ${lang}`).toEqual([]);
      }
    }
  });
});
