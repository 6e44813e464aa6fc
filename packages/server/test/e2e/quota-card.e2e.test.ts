/**
 * The overview's quota card near and past the limit, in Debian's Chromium against the real service
 * (SQLite) on loopback, at 360 px in Thai and 390 px in English. The card showed "0 left" and a full
 * gauge whatever the plan did next, so an owner on a plan with overage could not tell that checks go
 * on (free buffer, then charged per slip, up to the hard block), and one on a plan without overage or
 * on the trial could not tell that checks stop. The plans are the shipped catalogue (config/plans.json):
 * TRIAL 50 (no buffer), STARTER 500 + 10 free then stop, GROWTH 2,000 + 50 free then ฿0.50 a slip up to 4,050.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../src/container.js';
import { startSandbox } from '../helpers/sandbox.js';
import { warnIfNoChromium, HAS_CHROMIUM, launchChromium, thaiContext } from '../helpers/browser.js';
import { closeInOrder, ensureWebBuilt, startServedApp } from '../helpers/served-app.js';
import { OWNER_PASSWORD } from './money-e2e-kit.js';
import { th } from '../../../web/src/i18n/th.js';
import { en } from '../../../web/src/i18n/en.js';

warnIfNoChromium('quota card e2e');

describe.skipIf(!HAS_CHROMIUM)('overview: what happens past the quota (Chromium)', { timeout: 180_000 }, () => {
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let c: Container;
  let app: FastifyInstance;
  let base: string;
  let dataDir: string;
  let browser: Browser | undefined;
  const open: Array<{ close(): Promise<unknown> }> = [];

  beforeAll(async () => {
    ensureWebBuilt();
    bank = await startSandbox();
    ({ c, app, base, dataDir } = await startServedApp(bank.url, {}, { prefix: 'slipcheck-quota-card-e2e-', worker: false }));
  }, 180_000);

  afterAll(() => closeInOrder([...open, browser, app, c, bank], dataDir), 60_000);

  /** A shop signed up as an owner does (its trial), its owner's browser on the overview in `lang`. */
  async function shopIn(lang: 'th' | 'en', width: number): Promise<{ shopId: string; page: Page }> {
    const email = `quota-card-${lang}+${Date.now()}@example.com`;
    const res = await app.inject({
      method: 'POST',
      url: '/api/dashboard/auth/signup',
      payload: { email, password: OWNER_PASSWORD, shopName: 'ร้านโควตา', planCode: 'GROWTH', language: lang },
    });
    expect(res.statusCode).toBe(201);
    const shopId = res.json().data.shop.id as string;
    browser ??= await launchChromium();
    const ctx = await thaiContext(browser, { viewport: { width, height: 800 } });
    open.unshift(ctx);
    const page = await ctx.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${base}/login`);
    await page.getByLabel('อีเมล').fill(email);
    await page.getByLabel('รหัสผ่าน').fill(OWNER_PASSWORD);
    await page.getByRole('button', { name: 'เข้าสู่ระบบ', exact: true }).click();
    // The owner's language (chosen at sign-up) takes over once signed in.
    await page.getByRole('heading', { level: 1, name: (lang === 'th' ? th : en)['overview.title'] }).waitFor();
    return { shopId, page };
  }

  /** The card's words after the service's counter is set to `used` (as support's `quota adjust` does). */
  async function cardAt(page: Page, shopId: string, used: number, title: string): Promise<string> {
    await c.quota.adjust(shopId, { used }, 'test');
    await page.reload();
    const card = page.locator('.card', { has: page.getByRole('heading', { name: title }) });
    await card.locator('.gauge, svg').first().waitFor();
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    return card.innerText();
  }

  for (const [lang, width] of [
    ['th', 360],
    ['en', 390],
  ] as const) {
    const w = lang === 'th' ? th : en;
    it(`${lang} at ${width} px: the trial and a plan without overage say where checks stop; a plan with overage says checks go on, the buffer, the charge and the block`, async () => {
      const { shopId, page } = await shopIn(lang, width);
      const title = w['overview.quota'];

      // The trial, well inside its 50: nothing about what comes next.
      let text = await cardAt(page, shopId, 10, title);
      expect(text).not.toContain(w['quota.next.nearTitle']);
      // Near its end: checks stop at 50 (no buffer, no overage).
      text = await cardAt(page, shopId, 45, title);
      expect(text).toContain(w['quota.next.nearTitle']);
      expect(text).toMatch(lang === 'th' ? /ตรวจได้ถึง 50 สลิป แล้วจะหยุดตรวจ/ : /Checks stop at 50 slips\./);
      text = await cardAt(page, shopId, 50, title);
      expect(text).toContain(w['quota.next.stoppedTitle']);
      expect(text).toMatch(lang === 'th' ? /ช่วงทดลอง/ : /trial's 50 slips are used/);

      // STARTER: 500, then 10 free, then checks stop at 510; never a charge.
      await c.shops.setPlan(shopId, 'STARTER', 'test');
      text = await cardAt(page, shopId, 505, title);
      expect(text).toContain(w['quota.next.bufferTitle']);
      expect(text).toMatch(lang === 'th' ? /ใช้สลิปฟรีไป 5 จาก 10 หยุดตรวจที่ 510 สลิป/ : /5 of 10 free slips used; checks stop at 510\./);
      expect(text).not.toContain('฿');
      text = await cardAt(page, shopId, 510, title);
      expect(text).toContain(w['quota.next.stoppedTitle']);
      expect(text).toContain('510');

      // GROWTH: 2,000, then 50 free, then ฿0.50 a slip, blocked at 4,050 (the 2,000 overage cap).
      await c.shops.setPlan(shopId, 'GROWTH', 'test');
      text = await cardAt(page, shopId, 1_700, title);
      expect(text).toContain(w['quota.next.nearTitle']);
      expect(text).toMatch(
        lang === 'th'
          ? /เกิน 2,000 สลิปยังตรวจต่อได้: ฟรีอีก 50 สลิป จากนั้นสลิปละ ฿0\.50 ถึง 4,050 สลิป/
          : /After 2,000 slips, checks continue: 50 more free, then ฿0\.50 each, up to 4,050\./,
      );
      text = await cardAt(page, shopId, 2_020, title);
      expect(text).toContain(w['quota.next.bufferTitle']);
      expect(text).toMatch(lang === 'th' ? /ใช้สลิปฟรีไป 20 จาก 50/ : /20 of 50 free slips used; then ฿0\.50 each, up to 4,050\./);
      // 2,000 + 50 free + 1,233 charged: 1,233 × 50 satang = ฿616.50, by integers.
      text = await cardAt(page, shopId, 3_283, title);
      expect(text).toContain(w['quota.next.overageTitle']);
      expect(text).toMatch(
        lang === 'th'
          ? /คิดเงินเพิ่มแล้ว 1,233 สลิป รวม ฿616\.50 \(สลิปละ ฿0\.50\) หยุดตรวจที่ 4,050 สลิป/
          : /1,233 slips charged so far: ฿616\.50 \(฿0\.50 each\)\. Checks stop at 4,050\./,
      );
      text = await cardAt(page, shopId, 2_051, title);
      expect(text).toMatch(lang === 'th' ? /คิดเงินเพิ่มแล้ว 1 สลิป รวม ฿0\.50/ : /1 slip charged so far: ฿0\.50/);
      text = await cardAt(page, shopId, 4_050, title);
      expect(text).toContain(w['quota.next.stoppedTitle']);
      expect(text).toMatch(lang === 'th' ? /ครบ 4,050 สลิปของเดือนนี้แล้ว/ : /Checks stopped at 4,050 slips this month/);
    });
  }
});
