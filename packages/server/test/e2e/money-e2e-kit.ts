// What the two money browser tests (reports.e2e, money-reconcile.e2e) share: a shop with one KBANK
// payee account and a live key, made through the dashboard's signup; its owner signed in, in Thai, in
// Chromium; in-app navigation; the THB text the money card prints.
import { expect } from 'vitest';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../src/container.js';
import { launchChromium, thaiContext } from '../helpers/browser.js';

export const OWNER_PASSWORD = 'correct horse battery staple';
/** The shop's one payee account (KBANK); the sandbox bank's transfers go to it unless told otherwise. */
export const PAYEE_ACCOUNT = '1234566609';
export const PAYEE_HOLDER = 'บจก. ร้านกาแฟ ทดสอบ';

/** `฿1,250.50` from integer satang, as the money card prints it (no float on the way). */
export const baht = (satang: number) =>
  `฿${Math.floor(satang / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${String(satang % 100).padStart(2, '0')}`;

/** Signs a shop up as its owner would, on a paid plan, with the payee account and a live key with every scope. */
export async function signUpShopWithKey(app: FastifyInstance, c: Container, o: { email: string; shopName: string }) {
  const signup = await app.inject({
    method: 'POST',
    url: '/api/dashboard/auth/signup',
    payload: { email: o.email, password: OWNER_PASSWORD, shopName: o.shopName, planCode: 'STARTER' },
  });
  expect(signup.statusCode).toBe(201);
  const shopId = signup.json().data.shop.id as string;
  await c.shops.setPlan(shopId, 'STARTER', 'test');
  await c.payees.add(shopId, { bankCode: '004', accountNumber: PAYEE_ACCOUNT, holder: PAYEE_HOLDER }, 'test');
  const apiKey = (await c.apiKeys.create(shopId, { environment: 'live', scopes: 'verify,read' }, 'test')).key;
  return { shopId, apiKey };
}

/** Chromium in Thai with the owner signed in on the overview screen. */
export async function ownerSignedIn(
  base: string,
  email: string,
  options: BrowserContextOptions,
): Promise<{ browser: Browser; ctx: BrowserContext; page: Page }> {
  const browser = await launchChromium();
  const ctx = await thaiContext(browser, options);
  const page = await ctx.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(`${base}/login`);
  await page.getByLabel('อีเมล').fill(email);
  await page.getByLabel('รหัสผ่าน').fill(OWNER_PASSWORD);
  await page.getByRole('button', { name: 'เข้าสู่ระบบ' }).click();
  await page.getByRole('heading', { level: 1, name: 'ภาพรวม' }).waitFor();
  return { browser, ctx, page };
}

/** In-app navigation (a full reload per screen spends a refresh rotation each), then the screen's heading. */
export async function go(page: Page, route: string) {
  await page.evaluate((r) => {
    history.pushState({}, '', r);
    dispatchEvent(new PopStateEvent('popstate'));
  }, route);
  await page.getByRole('heading', { level: 1 }).first().waitFor();
}

/** Resizes the page and waits until the app has laid itself out at that width. */
export async function resize(page: Page, width: number, height: number) {
  await page.setViewportSize({ width, height });
  await page.waitForFunction((w) => window.innerWidth === w, width);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
}
