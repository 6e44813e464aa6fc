/**
 * Settings > data retention (PDPA) in Debian's Chromium, typed as a person types: the real service
 * (SQLite) on loopback. The months field clamped every keystroke to 1..120, so a field cleared with
 * Backspace showed 1 and the "6" typed next made 16, and "24" typed into a cleared field made 120: saved
 * as such, personal data kept for years longer than the owner chose, without a word.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../src/container.js';
import { startSandbox } from '../helpers/sandbox.js';
import { warnIfNoChromium, HAS_CHROMIUM } from '../helpers/browser.js';
import { closeInOrder, ensureWebBuilt, startServedApp } from '../helpers/served-app.js';
import { go as goIn, ownerSignedIn, signUpShopWithKey } from './money-e2e-kit.js';

warnIfNoChromium('settings retention e2e');

const EMAIL = `retention+${Date.now()}@example.com`;

describe.skipIf(!HAS_CHROMIUM)('settings: the retention months as typed (Chromium)', { timeout: 120_000 }, () => {
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let c: Container;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let dataDir: string;
  let shopId: string;
  const go = (route: string) => goIn(page, route);
  const months = () => page.getByLabel('เก็บข้อมูลไว้ (เดือน)');
  const saved = async () => (await c.shops.get(shopId)).settings as { privacy?: { retentionMonths?: number } };

  /** Saves the shop card and waits for the service's answer. */
  async function save() {
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/dashboard/settings') && r.request().method() === 'PATCH');
    await months().locator('xpath=ancestor::form').locator('button[type=submit]').click();
    expect((await answer).status()).toBe(200);
  }

  beforeAll(async () => {
    ensureWebBuilt();
    bank = await startSandbox();
    ({ c, app, base, dataDir } = await startServedApp(bank.url, {}, { prefix: 'slipcheck-retention-e2e-', worker: false }));
    ({ shopId } = await signUpShopWithKey(app, c, { email: EMAIL, shopName: 'ร้านเก็บข้อมูล' }));
    ({ browser, ctx, page } = await ownerSignedIn(base, EMAIL, { viewport: { width: 360, height: 780 } }));
  }, 180_000);

  afterAll(() => closeInOrder([ctx, browser, app, c, bank], dataDir), 60_000);

  it('Backspace then "6" is 6 months, a cleared field then "24" is 24, and saved as typed', async () => {
    await go('/settings');
    await expect.poll(() => months().inputValue()).toBe('12');

    await months().click();
    await page.keyboard.press('End');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('6');
    expect(await months().inputValue()).toBe('6');
    await save();
    expect((await saved()).privacy?.retentionMonths).toBe(6);

    await months().fill('');
    await page.keyboard.type('24');
    expect(await months().inputValue()).toBe('24');
    await save();
    expect((await saved()).privacy?.retentionMonths).toBe(24);
  });

  // Alerts by e-mail go to every active person of the shop (owner and staff: mail-owner-alerts recipients),
  // but the box said "to <the signed-in person's address>" alone.
  it('the e-mail notices box says they go to the whole team, not only to the signed-in address', async () => {
    await go('/settings');
    const box = page.locator('label', { hasText: /Send notices by e-mail|ส่งการแจ้งเตือนทางอีเมล/ });
    await expect.poll(() => box.innerText()).toMatch(/team|ทีม/);
    expect(await box.innerText()).toContain(EMAIL);
  });

  it('a number outside 1..120 is not saved (the field’s own range check stops it) and the months stay as they were', async () => {
    await go('/settings');
    await months().fill('');
    await page.keyboard.type('200');
    expect(await months().inputValue()).toBe('200');
    let patched = false;
    const seen = (r: { url(): string; method(): string }) => {
      if (r.url().endsWith('/api/dashboard/settings') && r.method() === 'PATCH') patched = true;
    };
    page.on('request', seen);
    await months().locator('xpath=ancestor::form').locator('button[type=submit]').click();
    expect(await months().evaluate((el: HTMLInputElement) => el.validity.rangeOverflow)).toBe(true);
    await page.waitForTimeout(300);
    page.off('request', seen);
    expect(patched).toBe(false);
    expect((await saved()).privacy?.retentionMonths).toBe(24);
  });
});
