/**
 * "Replaced by a later check" in Debian's Chromium: the real service (SQLite, inline worker) on loopback,
 * the sandbox bank as checker. A slip checked for the wrong amount (AMOUNT_MISMATCH) and checked again for
 * the right one (SUCCESS) leaves two records of one transfer; the money card counts the later one, and the
 * list row of the earlier one says so, in Thai and in English at 360 px, with a link to the later record,
 * which the record's own page repeats. A correction that arrives while the list is open marks its row too.
 */
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../src/container.js';
import { startSandbox } from '../helpers/sandbox.js';
import { th } from '../../../web/src/i18n/th.js';
import { en } from '../../../web/src/i18n/en.js';
import { warnIfNoChromium, HAS_CHROMIUM } from '../helpers/browser.js';
import { closeInOrder, ensureWebBuilt, startServedApp } from '../helpers/served-app.js';
import { baht, go as goIn, ownerSignedIn, resize, signUpShopWithKey } from './money-e2e-kit.js';

warnIfNoChromium('superseded e2e');

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../../../..');
// docs/screens/ with SLIPCHECK_UPDATE_SCREENS=1 (its README indexes them), test-output/screenshots/ otherwise.
const SHOTS =
  process.env.SLIPCHECK_UPDATE_SCREENS === '1' ? path.join(REPO, 'docs/screens') : path.resolve(HERE, '../../test-output/screenshots');
const EMAIL = `superseded+${Date.now()}@example.com`;

describe.skipIf(!HAS_CHROMIUM)('replaced checks on the list and the record (Chromium)', { timeout: 120_000 }, () => {
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let c: Container;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let dataDir: string;
  let apiKey: string;
  let shopId: string;
  const rec: Record<string, { id: string; status: string; transRef: string }> = {};

  /** One slip through the public API: `again` checks the transfer of an earlier slip once more (another picture). */
  async function verify(name: string, amount: number, opts: { expect?: string; again?: string; format?: 'png' | 'jpg' } = {}) {
    const transRef = opts.again ? rec[opts.again]!.transRef : (await bank.register({ amount })).transRef;
    const img = await bank.slip(transRef, 'clean', opts.format ?? 'png');
    const q = new URLSearchParams({ clientRef: `ORD-${name}`, ...(opts.expect ? { amount: opts.expect } : {}) });
    const res = await fetch(`${base}/api/v1/verify?${q}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/octet-stream' },
      body: img,
    });
    expect(res.status).toBe(200);
    const data = ((await res.json()) as { data: { id: string; status: string } }).data;
    rec[name] = { id: data.id, status: data.status, transRef };
    return rec[name]!;
  }

  const go = (route: string) => goIn(page, route);
  const row = (id: string) => page.locator('main .tx-list li', { has: page.locator(`a[href="/transactions/${id}"].tx-row`) });
  async function expectNoOverflow(where: string) {
    const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    expect(o.scroll, `${where}: horizontal overflow`).toBeLessThanOrEqual(o.inner);
  }

  beforeAll(async () => {
    ensureWebBuilt();
    fs.mkdirSync(SHOTS, { recursive: true });
    bank = await startSandbox();
    ({ c, app, base, dataDir } = await startServedApp(bank.url, {}, { prefix: 'slipcheck-superseded-e2e-', worker: false }));
    ({ shopId, apiKey } = await signUpShopWithKey(app, c, { email: EMAIL, shopName: 'ร้านตรวจซ้ำ' }));
    // Paid 500 for a 600 order: a mismatch; the owner then checks the same transfer for 500 and it passes.
    expect((await verify('short', 500, { expect: '600.00' })).status).toBe('AMOUNT_MISMATCH');
    expect((await verify('fixed', 500, { expect: '500.00', again: 'short', format: 'jpg' })).status).toBe('SUCCESS');
    expect((await verify('plain', 120.25)).status).toBe('SUCCESS');
    ({ browser, ctx, page } = await ownerSignedIn(base, EMAIL, { viewport: { width: 360, height: 780 } }));
  }, 180_000);

  afterAll(() => closeInOrder([ctx, browser, app, c, bank], dataDir), 60_000);

  for (const lang of ['th', 'en'] as const) {
    const t = lang === 'th' ? th : en;
    it(`${lang}: the replaced row says so and links to the check that counts; the record's page says it too (360 px)`, async () => {
      await page.getByRole('button', { name: lang === 'th' ? 'ไทย' : 'EN', exact: true }).click();
      await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(lang);
      await resize(page, 360, 780);
      await go('/transactions');
      await page.locator('main .tx-list').waitFor();
      // The card counts the transfer once: 500.00 + 120.25.
      await expect.poll(() => page.getByTestId('received-total').innerText()).toBe(baht(62_025));

      const short = row(rec.short!.id);
      await expect.poll(() => short.getByTestId('superseded').count()).toBe(1);
      const note = await short.getByTestId('superseded').innerText();
      expect(note).toContain(t['tx.superseded']);
      expect(note).toContain(t['status.SUCCESS']);
      if (lang === 'th') expect(note).not.toMatch(/Replaced|later check/i);
      // Only that row: the check that counts and the unrelated one carry no mark.
      expect(await page.locator('main .tx-list [data-testid="superseded"]').count()).toBe(1);
      expect(await row(rec.fixed!.id).getByTestId('superseded').count()).toBe(0);
      expect(await row(rec.plain!.id).getByTestId('superseded').count()).toBe(0);
      await expectNoOverflow(`list ${lang}`);
      await page.screenshot({ path: path.join(SHOTS, `superseded-list-${lang}-360.png`), fullPage: true });

      // The link opens the later record.
      await short.getByTestId('superseded-link').click();
      await page.getByRole('heading', { level: 1, name: t['tx.detailTitle'] }).waitFor();
      await expect.poll(() => page.url()).toBe(`${base}/transactions/${rec.fixed!.id}`);
      await page.locator('main .result').waitFor();
      expect(await page.getByTestId('superseded-detail').count()).toBe(0);

      // The replaced record's own page says it was replaced, and by which.
      await go(`/transactions/${rec.short!.id}`);
      const detail = page.getByTestId('superseded-detail');
      await detail.waitFor();
      expect(await detail.innerText()).toContain(t['tx.superseded']);
      expect(await detail.getByRole('link').getAttribute('href')).toBe(`/transactions/${rec.fixed!.id}`);
      // Its advice no longer asks for the difference: the later check settled the transfer.
      const next = await page.locator('main .result-next').innerText();
      expect(next).toContain(t['result.nextReplaced']);
      expect(next).not.toContain(t['result.amount.next']);
      await expectNoOverflow(`detail ${lang}`);
      await page.screenshot({ path: path.join(SHOTS, `superseded-detail-${lang}-360.png`), fullPage: true });
    });
  }

  it('a correction checked while the list is open marks the row it replaces, without a reload', async () => {
    await page.getByRole('button', { name: 'ไทย', exact: true }).click();
    await go('/transactions');
    await page.locator('main .tx-list').waitFor();
    await expect.poll(() => page.locator('.live').getAttribute('class')).toContain('live-open');
    const before = await page.evaluate(() => performance.getEntriesByType('navigation').length);
    await verify('late', 75, { expect: '80.00' });
    await expect.poll(() => row(rec.late!.id).count()).toBe(1);
    expect(await row(rec.late!.id).getByTestId('superseded').count()).toBe(0);
    await verify('lateFixed', 75, { expect: '75.00', again: 'late', format: 'jpg' });
    expect(rec.lateFixed!.status).toBe('SUCCESS');
    await expect.poll(() => row(rec.late!.id).getByTestId('superseded').count()).toBe(1);
    expect(await row(rec.late!.id).getByTestId('superseded').innerText()).toContain(th['tx.superseded']);
    expect(await page.evaluate(() => performance.getEntriesByType('navigation').length)).toBe(before);
    expect(shopId).toBeTruthy();
  });

  it('keeps the pages loaded with "load more" when the live feed reconnects and when a correction of a row on them arrives', async () => {
    // A mismatch, then more checks than the list's first page (30) holds, so it is on the second page.
    await verify('deep', 40, { expect: '45.00' });
    for (let i = 0; i < 30; i++) await verify(`filler${i}`, 10 + i);
    const rows = page.locator('main .tx-list li');
    await go('/'); // the list mounts anew: a live feed that has seen no event yet
    await go('/transactions');
    await page.locator('main .tx-list').waitFor();
    await expect.poll(() => page.locator('.live').getAttribute('class')).toContain('live-open');
    await expect.poll(() => rows.count()).toBe(30);
    expect(await row(rec.deep!.id).count()).toBe(0);
    await page.getByRole('button', { name: th['common.loadMore'] }).click();
    const total = Object.keys(rec).length;
    await expect.poll(() => rows.count()).toBe(total);
    expect(await row(rec.deep!.id).count()).toBe(1);

    // The feed drops before any event came (nothing to resume from), as when a proxy closes idle
    // streams, and stays down while a check is made: once back, the page fetches the newest checks
    // again. The check made meanwhile appears; the pages already loaded stay.
    await page.route('**/api/dashboard/events/ticket', (r) => r.abort());
    app.server.closeAllConnections();
    await expect.poll(() => page.locator('.live').getAttribute('class')).toContain('live-reconnecting');
    await verify('away', 33.5);
    await page.unroute('**/api/dashboard/events/ticket');
    await expect.poll(() => row(rec.away!.id).count(), { timeout: 60_000 }).toBe(1);
    expect(await rows.count()).toBe(total + 1);
    expect(await row(rec.deep!.id).count()).toBe(1);

    // The second-page row's transfer is checked again for the right amount: its row is marked in place.
    await verify('deepFixed', 40, { expect: '40.00', again: 'deep', format: 'jpg' });
    expect(rec.deepFixed!.status).toBe('SUCCESS');
    await expect.poll(() => row(rec.deep!.id).getByTestId('superseded').count()).toBe(1);
    await expect.poll(() => rows.count()).toBe(total + 2);
  }, 180_000);
});
