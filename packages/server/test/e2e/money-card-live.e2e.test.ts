/**
 * The money card on the transactions page follows live results whatever the list's filters. Opened from
 * the daily summary's link (yesterday's Bangkok day), or filtered to mismatches, the list takes no new
 * row, and the card (today, this week, this month: the filters do not apply to it) kept the figures it
 * loaded, while the overview's card, the mini-app and the next day's summary counted the new money.
 * Debian's Chromium, the real service on loopback, the sandbox bank as checker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../src/container.js';
import { startSandbox } from '../helpers/sandbox.js';
import { warnIfNoChromium, HAS_CHROMIUM } from '../helpers/browser.js';
import { closeInOrder, ensureWebBuilt, startServedApp } from '../helpers/served-app.js';
import { baht, go, ownerSignedIn, signUpShopWithKey } from './money-e2e-kit.js';

warnIfNoChromium('money card live e2e');

const EMAIL = `money-live+${Date.now()}@example.com`;
/** The Bangkok day `daysAgo` days before now, YYYY-MM-DD. */
const bangkokDay = (daysAgo: number) => new Date(Date.now() + 7 * 3_600_000 - daysAgo * 86_400_000).toISOString().slice(0, 10);

describe.skipIf(!HAS_CHROMIUM)('the money card on the transactions page follows live results (Chromium)', { timeout: 120_000 }, () => {
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let c: Container;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let dataDir: string;
  let apiKey: string;

  async function verify(amount: number, expectAmount?: string) {
    const { transRef } = await bank.register({ amount });
    const img = await bank.slip(transRef, 'clean', 'png');
    const q = expectAmount ? `?amount=${expectAmount}` : '';
    const res = await fetch(`${base}/api/v1/verify${q}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/octet-stream' },
      body: img,
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { status: string } }).data.status;
  }

  beforeAll(async () => {
    ensureWebBuilt();
    bank = await startSandbox();
    ({ c, app, base, dataDir } = await startServedApp(bank.url, {}, { prefix: 'slipcheck-money-live-e2e-', worker: false }));
    ({ apiKey } = await signUpShopWithKey(app, c, { email: EMAIL, shopName: 'ร้านยอดสด' }));
    expect(await verify(100)).toBe('SUCCESS');
    ({ browser, ctx, page } = await ownerSignedIn(base, EMAIL, { viewport: { width: 1280, height: 800 } }));
  }, 180_000);

  afterAll(() => closeInOrder([ctx, browser, app, c, bank], dataDir), 60_000);

  it("opened on yesterday (the daily summary's link), the card still counts today's new money", async () => {
    const day = bangkokDay(1);
    await go(page, `/transactions?from=${day}&to=${day}`);
    await page.locator('.live-open').waitFor();
    await expect.poll(() => page.getByTestId('received-total').innerText()).toBe(baht(100_00));
    // Yesterday's list has no row of today's checks, and takes none.
    expect(await page.locator('main .tx-list li').count()).toBe(0);
    expect(await verify(8.2)).toBe('SUCCESS');
    await expect.poll(() => page.getByTestId('received-total').innerText(), { timeout: 10_000 }).toBe(baht(108_20));
    expect(await page.locator('main .tx-list li').count()).toBe(0);
  });

  it('a short payment checked meanwhile moves received and "needs a look" on the same card', async () => {
    expect(await verify(50, '60.00')).toBe('AMOUNT_MISMATCH');
    await expect.poll(() => page.getByTestId('received-total').innerText(), { timeout: 10_000 }).toBe(baht(158_20));
    expect(await page.getByTestId('under-row').innerText()).toContain(baht(50_00));
    expect(await page.getByTestId('verified-row').innerText()).toContain(baht(108_20));
  });

  it('a burst of results asks for the money figures a few times, not once per result, and ends on the right total', async () => {
    // The figures are three sums over the month (0.3-0.9 s on SQLite at 50,000 results a month, on the
    // thread that answers every request): each open page asking once per live result at a busy till
    // would hold the service up. At most one ask in a few seconds, and the last result is never missed.
    const asks: number[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/dashboard/reports/totals')) asks.push(Date.now());
    });
    const burst = 6;
    const started = Date.now();
    for (let i = 0; i < burst; i++) expect(await verify(1)).toBe('SUCCESS');
    await expect.poll(() => page.getByTestId('received-total').innerText(), { timeout: 15_000 }).toBe(baht(164_20));
    const took = Date.now() - started;
    // One ask at once, then at most one per 5 s window of the burst and the one that ends it.
    expect(asks.length).toBeGreaterThanOrEqual(1);
    expect(asks.length).toBeLessThanOrEqual(2 + Math.floor(took / 5_000));
    expect(asks.length).toBeLessThan(burst);
  });
});
