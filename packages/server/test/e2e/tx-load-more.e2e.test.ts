/**
 * "Load more" on the transactions list when the next page cannot be fetched, in Debian's Chromium: the
 * real service (SQLite) on loopback, more results than the list's first page (30). The button used to
 * stop spinning and nothing else: no word of the failure, so an owner took the list for complete. The
 * page now says why, in the page's language, and the same button tries again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../src/container.js';
import { startSandbox } from '../helpers/sandbox.js';
import { th } from '../../../web/src/i18n/th.js';
import { en } from '../../../web/src/i18n/en.js';
import { warnIfNoChromium, HAS_CHROMIUM } from '../helpers/browser.js';
import { closeInOrder, ensureWebBuilt, startServedApp } from '../helpers/served-app.js';
import { insertTx } from '../reports/reports-helpers.js';
import { go as goIn, ownerSignedIn, signUpShopWithKey } from './money-e2e-kit.js';

warnIfNoChromium('load more e2e');

const EMAIL = `load-more+${Date.now()}@example.com`;
const NEXT_PAGE = '**/api/dashboard/transactions?*cursor=*';

describe.skipIf(!HAS_CHROMIUM)('transactions list: load more that fails (Chromium)', { timeout: 120_000 }, () => {
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let c: Container;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let dataDir: string;
  const go = (route: string) => goIn(page, route);

  beforeAll(async () => {
    ensureWebBuilt();
    bank = await startSandbox();
    ({ c, app, base, dataDir } = await startServedApp(bank.url, {}, { prefix: 'slipcheck-load-more-e2e-', worker: false }));
    const { shopId } = await signUpShopWithKey(app, c, { email: EMAIL, shopName: 'ร้านหลายรายการ' });
    // 35 results: a first page of 30 and 5 behind "load more".
    const now = Date.now();
    await insertTx(
      { c },
      shopId,
      Array.from({ length: 35 }, (_, i) => ({ createdAt: new Date(now - (i + 1) * 60_000).toISOString() })),
    );
    ({ browser, ctx, page } = await ownerSignedIn(base, EMAIL, { viewport: { width: 360, height: 780 } }));
  }, 180_000);

  afterAll(() => closeInOrder([ctx, browser, app, c, bank], dataDir), 60_000);

  for (const lang of ['th', 'en'] as const) {
    const t = lang === 'th' ? th : en;
    it(`${lang}: a next page that cannot be fetched is said beside the button, and the button tries again`, async () => {
      await page.getByRole('button', { name: lang === 'th' ? 'ไทย' : 'EN', exact: true }).click();
      await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(lang);
      await go('/');
      await go('/transactions');
      const rows = page.locator('main .tx-list li');
      await expect.poll(() => rows.count()).toBe(30);

      // The connection drops as the next page is asked for.
      await page.route(NEXT_PAGE, (r) => r.abort('connectionreset'));
      const more = page.getByRole('button', { name: t['common.loadMore'] });
      await more.click();
      const alert = page.locator('main .tx-results .alert');
      await expect.poll(() => alert.count()).toBe(1);
      expect(await alert.innerText()).toContain(t['error.network']);
      expect(await rows.count()).toBe(30);

      // Back online: the same button loads the rest, and the failure is no longer said.
      await page.unroute(NEXT_PAGE);
      await more.click();
      await expect.poll(() => rows.count()).toBe(35);
      expect(await alert.count()).toBe(0);
      expect(await more.count()).toBe(0);
    });
  }
});
