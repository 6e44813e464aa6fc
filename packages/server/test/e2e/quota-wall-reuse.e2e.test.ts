/**
 * A re-used slip at the quota wall, in Debian's Chromium at 390x844, on the dashboard's check page and
 * in the LINE mini-app, Thai then English: the real service on loopback (SQLite, inline worker), the
 * sandbox bank as checker, a fake LINE Login platform and @line/liff-mock (as miniapp.e2e.test.ts).
 * The wall stands before the decoder, so both screens said only "quota used up" to another picture of
 * a transfer the shop had already credited; staff then found the first payment's money in the bank
 * app and handed the goods over twice. Screenshots go to test-output/screenshots/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../src/container.js';
import type { startSandbox } from '../helpers/sandbox.js';
import type { FakeLineLogin } from '../line-login/fake-line-login.js';
import { th } from '../../../web/src/i18n/th.js';
import { en } from '../../../web/src/i18n/en.js';
import { MINI_TEXT } from '../../../web/src/miniapp/miniapp-dict.js';
import { launchChromium, thaiContext, warnIfNoChromium, HAS_CHROMIUM } from '../helpers/browser.js';
import { closeInOrder } from '../helpers/served-app.js';
import { MINI_PASSWORD as PASSWORD, startMiniAppStack } from './miniapp-kit.js';

warnIfNoChromium('quota wall e2e');

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = path.resolve(HERE, '../../test-output/screenshots');
const CHANNEL_ID = '1657000003';

describe.skipIf(!HAS_CHROMIUM)('a re-used slip at the quota wall, dashboard and mini-app (Chromium, 390x844)', { timeout: 120_000 }, () => {
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let fake: FakeLineLogin;
  let c: Container;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let dashCtx: BrowserContext;
  let miniCtx: BrowserContext;
  let dash: Page;
  let mini: Page;
  let dataDir: string;
  let ownerAuth: Record<string, string>;
  let email: string;
  let shopId: string;
  /** The transfer the shop credited before the wall: its record's id, and its time as both screens write it (Bangkok, HH:mm). */
  let first: { id: string; time: string };
  let transRef: string;
  const sub = `U${'c3'.repeat(16)}`;

  const idToken = () => fake.issue({ sub, aud: CHANNEL_ID, exp: Math.floor(Date.now() / 1000) + 3600, name: 'แคชเชียร์' });
  let n = 0;
  /** Another picture of the transfer each time (a new file: the same bytes again would be a replay). */
  const slipFile = async (ref: string) => {
    const variants = ['jpeg70', 'camera12mp', 'clean'];
    const f = path.join(dataDir, `slip-${ref}-${n}.jpg`);
    fs.writeFileSync(f, await bank.slip(ref, variants[n++ % variants.length], 'jpg'));
    return f;
  };
  const noOverflow = async (p: Page, where: string) => {
    const o = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(o, `${where}: horizontal overflow`).toBeLessThanOrEqual(0);
  };
  const phone = (b: Browser) => thaiContext(b, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  /** The warning: already used, when, how much, a link to the first record; and the quota is still said to be used up. */
  async function expectReusedWarning(p: Page, lang: 'th' | 'en', shotName: string) {
    const words = lang === 'th' ? th : en;
    const warning = p.getByTestId('reused-slip');
    await warning.waitFor();
    const text = await warning.innerText();
    expect(text).toContain(words['check.reused.title']);
    expect(text).toContain('฿420.50');
    expect(text).toContain(first.time);
    const link = warning.getByRole('link', { name: words['check.reused.open'] });
    expect(await link.getAttribute('href')).toBe(`/transactions/${first.id}`);
    await p.getByText(words['error.QUOTA_EXCEEDED.TRIAL_QUOTA']).waitFor();
    await noOverflow(p, shotName);
    // A full-page shot of a scrolled page draws the sticky bar mid-page: shoot from the top.
    await p.evaluate(() => window.scrollTo(0, 0));
    await p.screenshot({ path: path.join(SHOTS, `${shotName}.png`), fullPage: true });
  }

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    ({ bank, fake, c, app, base, dataDir, email, shopId, ownerAuth } = await startMiniAppStack({
      channelId: CHANNEL_ID,
      liffSuffix: 'WallTest',
      prefix: 'slipcheck-quota-wall-',
      shopName: 'ร้านกาแฟโควตาหมด',
    }));

    // The first payment, checked while the trial had checks left; then the trial's 50 are used up.
    ({ transRef } = await bank.register({ amount: 420.5 }));
    const checked = await app.inject({
      method: 'POST',
      url: '/api/dashboard/verify',
      headers: { ...ownerAuth, 'content-type': 'image/png' },
      payload: await bank.slip(transRef),
    });
    expect(checked.json().data).toMatchObject({ status: 'SUCCESS', amount: 420.5 });
    const time = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Bangkok', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    first = { id: checked.json().data.id, time: time.format(new Date(checked.json().data.createdAt)) };
    await c.quota.adjust(shopId, { used: 50 }, 'test');

    browser = await launchChromium();
    dashCtx = await phone(browser);
    miniCtx = await phone(browser);
    dash = await dashCtx.newPage();
    mini = await miniCtx.newPage();
    dash.setDefaultTimeout(20_000);
    mini.setDefaultTimeout(20_000);
  }, 120_000);

  afterAll(() => closeInOrder([dashCtx, miniCtx, browser, app, c, bank, fake], dataDir), 60_000);

  it('the dashboard check page warns that the slip was already used (when, how much, the first record), and that the quota is used up', async () => {
    await dash.goto(`${base}/login`);
    await dash.getByLabel('อีเมล').fill(email);
    await dash.getByLabel('รหัสผ่าน').fill(PASSWORD);
    await dash.getByRole('button', { name: 'เข้าสู่ระบบ', exact: true }).click();
    await expect.poll(() => dash.url()).not.toContain('/login');
    await dash.goto(`${base}/check`);
    await dash.getByTestId('slip-input').waitFor({ state: 'attached' });

    // A transfer the shop has not seen: the quota answer alone, no warning.
    await dash.getByTestId('slip-input').setInputFiles(await slipFile((await bank.register({ amount: 99 })).transRef));
    await dash.getByText(th['error.QUOTA_EXCEEDED.TRIAL_QUOTA']).waitFor();
    expect(await dash.getByTestId('reused-slip').count()).toBe(0);

    await dash.getByTestId('slip-input').setInputFiles(await slipFile(transRef));
    await expectReusedWarning(dash, 'th', 'quota-wall-reused-dashboard-th');

    await dash.getByRole('button', { name: 'EN' }).click();
    await dash.getByTestId('slip-input').setInputFiles(await slipFile(transRef));
    await expectReusedWarning(dash, 'en', 'quota-wall-reused-dashboard-en');

    // The link opens the first record.
    await dash.getByTestId('reused-slip').getByRole('link').click();
    await expect.poll(() => dash.url()).toContain(`/transactions/${first.id}`);
    await dash.locator('main .result').getByText(transRef).waitFor();
  });

  it('the LINE mini-app warns the same way, in Thai and in English', async () => {
    const code = (await app.inject({ method: 'POST', url: '/api/dashboard/line-login/code', headers: ownerAuth })).json().data.code;
    await mini.goto(`${base}/miniapp?mockIdToken=${idToken()}`);
    await mini.getByTestId('link-code').fill(code);
    await mini.getByRole('button', { name: MINI_TEXT.th.link }).click();
    await mini.getByText('ร้านกาแฟโควตาหมด').waitFor();

    await mini.getByTestId('slip-input').setInputFiles(await slipFile(transRef));
    await expectReusedWarning(mini, 'th', 'quota-wall-reused-miniapp-th');

    await mini.getByRole('button', { name: 'EN' }).click();
    await mini.getByRole('tab', { name: MINI_TEXT.en.tabCheck }).waitFor();
    await mini.getByTestId('slip-input').setInputFiles(await slipFile(transRef));
    await expectReusedWarning(mini, 'en', 'quota-wall-reused-miniapp-en');

    // Nothing was recorded or charged at the wall: the first payment is still the shop's only record.
    const rows = await c.db.selectFrom('transactions').select('status').where('shop_id', '=', shopId).execute();
    expect(rows.map((r) => r.status)).toEqual(['SUCCESS']);
  });

  it("the mini-app's checks-left count follows the 402: 0 once the quota runs out under it, at 360 and 390 px, Thai and English", async () => {
    // The count was read once at sign-in and after a successful check only: a 402 (the quota taken by
    // other channels meanwhile) left it showing checks the shop no longer had, next to "quota used up".
    const left = () => mini.getByTestId('quota-left');
    for (const width of [360, 390]) {
      await mini.setViewportSize({ width, height: 844 });
      for (const lang of ['th', 'en'] as const) {
        await c.quota.adjust(shopId, { used: 45 }, 'test');
        await mini.reload();
        await mini.getByRole('button', { name: lang === 'th' ? 'ไทย' : 'EN', exact: true }).click();
        await expect.poll(() => left().textContent()).toBe(MINI_TEXT[lang].quotaLeft.replace('{n}', '5'));
        // Other channels use the rest while the mini-app stays open.
        await c.quota.adjust(shopId, { used: 50 }, 'test');
        await mini.getByTestId('slip-input').setInputFiles(await slipFile((await bank.register({ amount: 12 })).transRef));
        await mini.getByText((lang === 'th' ? th : en)['error.QUOTA_EXCEEDED.TRIAL_QUOTA']).waitFor();
        await expect.poll(() => left().textContent(), { timeout: 5_000 }).toBe(MINI_TEXT[lang].quotaLeft.replace('{n}', '0'));
        await noOverflow(mini, `quota left after 402 @${width} ${lang}`);
        await mini.screenshot({ path: path.join(SHOTS, `quota-wall-left-miniapp-${lang}-${width}.png`) });
      }
    }
  });
});
