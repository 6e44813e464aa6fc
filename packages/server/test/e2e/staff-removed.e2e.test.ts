/**
 * A staff member the owner removes while they are signed in, in Debian's Chromium against the real
 * service (SQLite) on loopback. Their next request is refused and the app lands on the sign-in page;
 * it used to say nothing there, so they signed in again, failed (the removal frees their address) and
 * could not tell why. The sign-in page now says their access to the shop was removed and to ask the
 * owner, in the page's language, and an ordinary end of session says only that it ended.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../src/container.js';
import { startSandbox } from '../helpers/sandbox.js';
import { warnIfNoChromium, HAS_CHROMIUM, launchChromium, thaiContext } from '../helpers/browser.js';
import { closeInOrder, ensureWebBuilt, startServedApp } from '../helpers/served-app.js';
import { go, OWNER_PASSWORD, signUpShopWithKey } from './money-e2e-kit.js';
import { th } from '../../../web/src/i18n/th.js';
import { en } from '../../../web/src/i18n/en.js';

warnIfNoChromium('staff removed e2e');

const OWNER = `removal-owner+${Date.now()}@example.com`;
const STAFF_PASSWORD = 'staff password one';

describe.skipIf(!HAS_CHROMIUM)('a staff member removed while signed in (Chromium)', { timeout: 120_000 }, () => {
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let c: Container;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let dataDir: string;
  let ownerAuth: Record<string, string>;
  let shopId: string;
  let seq = 0;

  /** Invites a staff member through the owner's Team API and accepts the invite; their id and address. */
  async function staff(language: 'th' | 'en') {
    const email = `removal-staff${++seq}+${Date.now()}@example.com`;
    const inv = await app.inject({ method: 'POST', url: '/api/dashboard/team/invites', headers: ownerAuth, payload: { email } });
    expect(inv.statusCode).toBe(201);
    const [mail] = await c.mail.list({ to: email, limit: 1 });
    const token = /accept-invite\?token=(inv_[A-Za-z0-9_-]+)/.exec(mail?.text ?? '')![1];
    const accepted = await app.inject({
      method: 'POST',
      url: '/api/dashboard/auth/accept-invite',
      payload: { token, password: STAFF_PASSWORD },
    });
    expect(accepted.statusCode).toBe(201);
    const d = accepted.json().data;
    const pref = await app.inject({
      method: 'PATCH',
      url: '/api/dashboard/me/preferences',
      headers: { authorization: `Bearer ${d.accessToken}` },
      payload: { language },
    });
    expect(pref.statusCode).toBe(200);
    return { email, userId: d.user.id as string };
  }

  /** The staff member signed in on the overview of a phone-sized page. */
  async function signedIn(email: string, width: number): Promise<Page> {
    const ctx = await thaiContext(browser, { viewport: { width, height: 780 } });
    const page = await ctx.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${base}/login`);
    await page.getByLabel('อีเมล').fill(email);
    await page.getByLabel('รหัสผ่าน').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'เข้าสู่ระบบ', exact: true }).click();
    await page.locator('h1#page-title').filter({ hasNotText: th['auth.loginTitle'] }).waitFor();
    return page;
  }

  /** The text of the sign-in page's notices, once the app has gone there. */
  async function loginNotice(page: Page, title: string): Promise<string> {
    await page.getByRole('heading', { level: 1, name: title }).waitFor();
    await page.locator('.auth-card .alert').first().waitFor();
    return page
      .locator('.auth-card .alert')
      .allInnerTexts()
      .then((t) => t.join('\n'));
  }

  beforeAll(async () => {
    ensureWebBuilt();
    bank = await startSandbox();
    ({ c, app, base, dataDir } = await startServedApp(bank.url, {}, { prefix: 'slipcheck-removed-e2e-', worker: false }));
    ({ shopId } = await signUpShopWithKey(app, c, { email: OWNER, shopName: 'ร้านทีมงาน' }));
    await c.shops.setPlan(shopId, 'GROWTH', 'test'); // seats for the staff below
    const login = await app.inject({
      method: 'POST',
      url: '/api/dashboard/auth/login',
      payload: { email: OWNER, password: OWNER_PASSWORD },
    });
    ownerAuth = { authorization: `Bearer ${login.json().data.accessToken}` };
    browser = await launchChromium();
  }, 180_000);

  afterAll(() => closeInOrder([browser, app, c, bank], dataDir), 60_000);

  const remove = async (userId: string) =>
    expect((await app.inject({ method: 'DELETE', url: `/api/dashboard/team/members/${userId}`, headers: ownerAuth })).statusCode).toBe(200);

  for (const [lang, width] of [
    ['th', 360],
    ['en', 390],
  ] as const) {
    const words = lang === 'th' ? th : en;
    it(`${lang} at ${width} px: removed by the owner mid-session, the sign-in page says access was removed and to ask the owner`, async () => {
      const s = await staff(lang);
      const page = await signedIn(s.email, width);
      await remove(s.userId);
      // The next screen's request is refused: the app refreshes, the service says why, the app signs out.
      await page.evaluate(() => {
        history.pushState({}, '', '/transactions');
        dispatchEvent(new PopStateEvent('popstate'));
      });
      const notice = await loginNotice(page, words['auth.loginTitle']);
      expect(notice).toContain(words['auth.removedTitle']);
      expect(notice).toContain(words['auth.removedBody']);
      expect(notice).not.toContain(words['error.REFRESH_INVALID']);
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(lang);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      // Opened again later (the refused cookie was cleared): a plain sign-in page, the notice was for that moment.
      await page.reload();
      await page.getByRole('heading', { level: 1, name: words['auth.loginTitle'] }).waitFor();
      await page.getByLabel(words['auth.email']).waitFor();
      expect(await page.locator('.auth-card .alert').count()).toBe(0);
      await page.context().close();
    });
  }

  it("en at 390 px: a staff member's settings offer the data the shop keeps about them, and the file holds only that", async () => {
    const s = await staff('en');
    const page = await signedIn(s.email, 390);
    await go(page, '/settings');
    await page.getByText(en['settings.exportBodyStaff']).waitFor();
    expect(await page.getByText(en['settings.exportBody'], { exact: true }).count()).toBe(0);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: en['settings.export'] }).click(),
    ]);
    const file = JSON.parse(fs.readFileSync((await download.path())!, 'utf8')) as Record<string, unknown> & { user: { email: string } };
    expect(file).toMatchObject({ scope: 'person', user: { email: s.email } });
    // Not the shop's data (its customers' results, accounts, keys): that is the owner's export.
    for (const shopData of ['transactions', 'payeeAccounts', 'apiKeys', 'shop']) expect(file).not.toHaveProperty(shopData);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.context().close();
  });

  it('an ordinary end of session (signed out everywhere) says the session ended, not that access was removed', async () => {
    const s = await staff('th');
    const page = await signedIn(s.email, 360);
    await c.sessions.revokeAll(s.userId, { actor: `user:${s.userId}`, shopId, ip: null, reason: 'logout_all' });
    await go(page, '/transactions');
    const notice = await loginNotice(page, th['auth.loginTitle']);
    expect(notice).toContain(th['error.REFRESH_INVALID']);
    expect(notice).not.toContain(th['auth.removedTitle']);
    await page.context().close();
  });
});
