/**
 * The LINE mini-app end to end in Debian's Chromium at 390x844: the real service on loopback (SQLite,
 * inline worker), the sandbox bank as checker, a fake LINE Login platform for ID-token verification,
 * and @line/liff-mock standing in for the LINE app (LIFF_MOCK, refused in production). Screenshots of
 * each screen in Thai and English go to test-output/screenshots/, or to docs/screens/ (committed, for
 * reviewers) when SLIPCHECK_UPDATE_SCREENS=1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../src/container.js';
import type { startSandbox } from '../helpers/sandbox.js';
import { transactionRow } from '../helpers/records.js';
import { baht } from './money-e2e-kit.js';
import type { FakeLineLogin } from '../line-login/fake-line-login.js';
import { th } from '../../../web/src/i18n/th.js';
import { en } from '../../../web/src/i18n/en.js';
import { MINI_TEXT } from '../../../web/src/miniapp/miniapp-dict.js';
import { LINE_LOGIN_TEXT } from '../../../web/src/components/line-login-text.js';
import { launchChromium, thaiContext, warnIfNoChromium, HAS_CHROMIUM } from '../helpers/browser.js';
import { closeInOrder } from '../helpers/served-app.js';
import { MINI_PASSWORD, startMiniAppStack } from './miniapp-kit.js';

warnIfNoChromium('mini-app e2e');

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../../../..');
const SCREENS =
  process.env.SLIPCHECK_UPDATE_SCREENS === '1' ? path.join(REPO, 'docs/screens') : path.resolve(HERE, '../../test-output/screenshots');
const CHANNEL_ID = '1657000002';

describe.skipIf(!HAS_CHROMIUM)('LINE mini-app end to end (Chromium, 390x844)', { timeout: 120_000 }, () => {
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let fake: FakeLineLogin;
  let c: Container;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let dataDir: string;
  let ownerAuth: Record<string, string>;
  let shopId: string;
  let apiKey: string;
  let ownerEmail: string;
  const sub = `U${'a1'.repeat(16)}`;
  const files: string[] = [];

  const idToken = () => fake.issue({ sub, aud: CHANNEL_ID, exp: Math.floor(Date.now() / 1000) + 3600, name: 'แคชเชียร์' });
  const slipFile = async (transRef: string, variant = 'clean', format: 'png' | 'jpg' = 'png') => {
    const f = path.join(dataDir, `slip-${transRef}-${variant}.${format}`);
    fs.writeFileSync(f, await bank.slip(transRef, variant, format));
    files.push(f);
    return f;
  };
  const shot = async (name: string) => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(SCREENS, `miniapp-${name}.png`), fullPage: true });
  };
  const noOverflow = async (where: string) => {
    const o = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(o, `${where}: horizontal overflow`).toBeLessThanOrEqual(0);
  };
  const resultCard = () => page.locator('article.result').last();

  beforeAll(async () => {
    fs.mkdirSync(SCREENS, { recursive: true });
    ({
      bank,
      fake,
      c,
      app,
      base,
      dataDir,
      email: ownerEmail,
      shopId,
      ownerAuth,
    } = await startMiniAppStack({ channelId: CHANNEL_ID, liffSuffix: 'MiniTest', prefix: 'slipcheck-miniapp-', shopName: 'ร้านกาแฟมินิ' }));
    await c.shops.setPlan(shopId, 'STARTER', 'test');
    apiKey = (await c.apiKeys.create(shopId, { environment: 'live', scopes: 'verify,read' }, 'test')).key;

    browser = await launchChromium();
    ctx = await thaiContext(browser, {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    page = await ctx.newPage();
    page.setDefaultTimeout(20_000);
  }, 120_000);

  afterAll(() => closeInOrder([ctx, browser, app, c, bank, fake], dataDir), 60_000);

  it('an unlinked LINE user sees a Thai explanation and nothing of the shop, then links with a code from the dashboard', async () => {
    await page.goto(`${base}/miniapp?mockIdToken=${idToken()}`);
    await page.getByText(MINI_TEXT.th.notLinkedTitle).waitFor();
    expect(await page.content()).not.toContain('ร้านกาแฟมินิ');
    await noOverflow('unlinked');
    await shot('link-th');
    // The owner creates the code on the dashboard's security page (a browser of their own).
    const ownerCtx = await browser.newContext({ locale: 'th-TH', timezoneId: 'Asia/Bangkok', viewport: { width: 390, height: 844 } });
    const dash = await ownerCtx.newPage();
    await dash.goto(`${base}/login`);
    await dash.getByLabel('อีเมล').fill(ownerEmail);
    await dash.getByLabel('รหัสผ่าน').fill(MINI_PASSWORD);
    await dash.getByRole('button', { name: 'เข้าสู่ระบบ', exact: true }).click();
    await expect.poll(() => dash.url()).not.toContain('/login');
    await dash.goto(`${base}/security`);
    await dash.getByRole('button', { name: LINE_LOGIN_TEXT.th.newCode }).click();
    const code = (await dash.getByTestId('line-link-code').textContent())!.trim();
    expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    await dash.getByTestId('line-link-code').scrollIntoViewIfNeeded();
    await dash.screenshot({ path: path.join(SCREENS, 'miniapp-dashboard-link-code-th.png') });
    // The LINE page shows the link to put in the OA's rich menu.
    await dash.goto(`${base}/line`);
    expect(await dash.getByTestId('miniapp-url').textContent()).toBe(`https://liff.line.me/${CHANNEL_ID}-MiniTest`);
    await ownerCtx.close();
    await page.getByTestId('link-code').fill(code);
    await page.getByRole('button', { name: MINI_TEXT.th.link }).click();
    await page.getByText('ร้านกาแฟมินิ').waitFor();
    await page.getByTestId('quota-left').waitFor();
  });

  it('a reload with the same cached LIFF ID token lands on the home again, as the same person in the same session', async () => {
    // Real LIFF hands the page the same ID token after a reload until it expires; the service accepts a
    // token for one sign-in only, so the reload must resume the session the first sign-in opened.
    const token = idToken();
    const miniSessions = async () =>
      (
        (await app.inject({ method: 'GET', url: '/api/dashboard/sessions', headers: ownerAuth })).json().data.items as Array<{
          kind: string;
        }>
      ).filter((s) => s.kind === 'miniapp').length;
    await page.goto(`${base}/miniapp?mockIdToken=${token}`);
    await page.getByTestId('quota-left').waitFor();
    const before = await miniSessions();
    for (let i = 0; i < 2; i++) {
      await page.reload();
      await page.getByTestId('quota-left').waitFor();
      expect(await page.getByText(MINI_TEXT.th.signInFailed).count()).toBe(0);
      expect(await page.content()).toContain('ร้านกาแฟมินิ');
    }
    // Resumed, not a second session: the owner's mini-app sessions did not grow.
    expect(await miniSessions()).toBe(before);
  });

  it('checks a sandbox slip from page load to result card, then shows a replay and a duplicate as warnings', async () => {
    const { transRef } = await bank.register({ amount: 450.25 });
    const slip = await slipFile(transRef);
    const started = Date.now();
    await page.goto(`${base}/miniapp?mockIdToken=${idToken()}`);
    await page.getByTestId('slip-input').setInputFiles(slip);
    await expect.poll(() => resultCard().getAttribute('data-variant')).toBe('genuine');
    const seconds = (Date.now() - started) / 1000;
    // Measured, not asserted (timings belong to benchmarks): the issue's target is under 10 s.
    console.log(`[mini-app e2e] page load to result card: ${seconds.toFixed(2)} s`);
    await expect.poll(() => resultCard().textContent()).toContain(th['result.genuine.title']);
    await noOverflow('result');
    await shot('check-th');

    // The same picture again: the earlier record, told as a replay, never as a fresh payment.
    await page.getByTestId('slip-input').setInputFiles(slip);
    await expect.poll(() => resultCard().textContent()).toContain(th['result.replay.title']);
    expect(await resultCard().getAttribute('class')).toContain('result-warn');
    await shot('replay-th');

    // Another picture of the same transfer: DUPLICATE.
    await page.getByTestId('slip-input').setInputFiles(await slipFile(transRef, 'clean', 'jpg'));
    await expect.poll(() => resultCard().getAttribute('data-variant')).toBe('duplicate');
    await shot('duplicate-th');
  });

  it("today's list has the check, its total and counts, and a result from another channel arrives live", async () => {
    await page.getByRole('tab', { name: MINI_TEXT.th.tabToday }).click();
    await expect.poll(() => page.getByTestId('today-total').textContent()).toContain('450.25');
    // The count beside the amount is the slips that make it up (the money view's "from N slips"), not every check.
    await expect.poll(() => page.getByTestId('today-count').textContent()).toBe('จาก 1 สลิป');
    await expect.poll(() => page.getByTestId('count-DUPLICATE').textContent()).toBe('1');
    await page.getByText(MINI_TEXT.th.live).waitFor();

    const { transRef } = await bank.register({ amount: 99.5 });
    const res = await fetch(`${base}/api/v1/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'image/png' },
      body: await bank.slip(transRef),
    });
    expect((await res.json()).data.status).toBe('SUCCESS');
    await expect.poll(() => page.getByTestId('today-total').textContent(), { timeout: 15_000 }).toContain('549.75');
    await expect.poll(() => page.getByTestId('count-SUCCESS').textContent()).toBe('2');
    await expect.poll(() => page.getByTestId('today-count').textContent()).toBe('จาก 2 สลิป');
    await noOverflow('today');
    await shot('today-th');
  });

  it('after more than 100 checks today the total and counts still match the money view, and the list says it shows the newest', async () => {
    // 105 unreadable pictures, newer than the two genuine slips, written as the pipeline writes them.
    const now = Date.now();
    const rows = Array.from({ length: 105 }, (_, i) =>
      transactionRow(shopId, new Date(now + i), 'INVALID', {
        trans_ref: null,
        amount_satang: null,
        error_code: 'UNREADABLE_IMAGE',
        charged: 0,
        source: 'LINE',
      }),
    );
    await c.db.insertInto('transactions').values(rows).execute();
    // The money view's figure, which the mini-app must repeat (the two genuine slips of the tests above).
    const totals = (await app.inject({ method: 'GET', url: '/api/dashboard/reports/totals', headers: ownerAuth })).json().data;
    const { count, amountSatang } = totals.periods.today.received as { count: number; amountSatang: number };
    expect(count).toBeGreaterThan(0);

    await page.goto(`${base}/miniapp?mockIdToken=${idToken()}`);
    await page.getByRole('tab', { name: MINI_TEXT.th.tabToday }).click();
    await expect.poll(() => page.getByTestId('today-total').textContent()).toBe(baht(amountSatang));
    await expect.poll(() => page.getByTestId('today-count').textContent()).toBe(`จาก ${count} สลิป`);
    await expect.poll(() => page.getByTestId('count-INVALID').textContent()).toBe('105');
    await expect.poll(() => page.getByTestId('count-SUCCESS').textContent()).toBe(String(count));
    await page.getByTestId('today-more').waitFor();
    await noOverflow('today, more than 100');
  });

  it('speaks English on the switch; the session is a dashboard-rules session with its HttpOnly refresh cookie on /api', async () => {
    await page.getByRole('button', { name: 'EN' }).click();
    await page.getByRole('tab', { name: MINI_TEXT.en.tabToday }).waitFor();
    await shot('today-en');
    await page.getByRole('tab', { name: MINI_TEXT.en.tabCheck }).click();
    await page.getByTestId('slip-input').setInputFiles(files[0]);
    await expect.poll(() => resultCard().textContent()).toContain(en['result.replay.title']);
    await shot('check-en');
    // The refresh cookie (HttpOnly, path /api) is what a reload or an expired access token falls back on.
    const cookies = await ctx.cookies(`${base}/api/dashboard/auth/refresh`);
    const refresh = cookies.find((k) => k.name === 'slipcheck_refresh');
    expect(refresh?.httpOnly).toBe(true);
    expect(refresh?.path).toBe('/api');
    const sessions = (await app.inject({ method: 'GET', url: '/api/dashboard/sessions', headers: ownerAuth })).json().data.items as Array<{
      kind: string;
    }>;
    expect(sessions.filter((s) => s.kind === 'miniapp').length).toBeGreaterThan(0);
  });
  it('in English too: a fresh check, a duplicate, and the explanation an unlinked LINE user gets', async () => {
    const { transRef } = await bank.register({ amount: 75 });
    await page.getByTestId('slip-input').setInputFiles(await slipFile(transRef));
    await expect.poll(() => resultCard().textContent()).toContain(en['result.genuine.title']);
    await shot('check-fresh-en');
    await page.getByTestId('slip-input').setInputFiles(await slipFile(transRef, 'clean', 'jpg'));
    await expect.poll(() => resultCard().getAttribute('data-variant')).toBe('duplicate');
    await shot('duplicate-en');
    const stranger = fake.issue({ sub: `U${'b2'.repeat(16)}`, aud: CHANNEL_ID, exp: Math.floor(Date.now() / 1000) + 3600 });
    await page.goto(`${base}/miniapp?mockIdToken=${stranger}`);
    await page.getByText(MINI_TEXT.en.notLinkedTitle).waitFor();
    expect(await page.content()).not.toContain('ร้านกาแฟมินิ');
    await shot('link-en');
  });

  it('the language switch on the green header shows the chosen language as the one picked, at 360 and 390 px', async () => {
    for (const width of [360, 390]) {
      await page.setViewportSize({ width, height: 844 });
      for (const [pick, other] of [
        ['ไทย', 'EN'],
        ['EN', 'ไทย'],
      ] as const) {
        await page.getByRole('button', { name: pick, exact: true }).click();
        await expect.poll(() => page.getByRole('button', { name: pick, exact: true }).getAttribute('aria-pressed')).toBe('true');
        expect(await page.getByRole('button', { name: other, exact: true }).getAttribute('aria-pressed')).toBe('false');
        // On the header's green the picked button must stand out, and the other one must not (the QA shot
        // drew the picked one header-green and the other white, so EN looked chosen on a Thai page).
        const look = await page.evaluate(() => {
          const bg = (el: Element) => getComputedStyle(el).backgroundColor;
          const header = document.querySelector('.mini-top')!;
          return {
            header: bg(header),
            on: bg(header.querySelector('.lang-switch button[aria-pressed="true"]')!),
            off: bg(header.querySelector('.lang-switch button[aria-pressed="false"]')!),
          };
        });
        expect(look.on, `${pick} @${width}`).not.toBe(look.header);
        expect(['rgba(0, 0, 0, 0)', look.header], `${pick} @${width}`).toContain(look.off);
      }
      await noOverflow(`language switch @${width}`);
    }
    await page.screenshot({ path: path.join(SCREENS, 'miniapp-lang-switch-en-390.png') });
  });

  it('the two tabs follow the WAI-ARIA tabs pattern: tablist, tabs that name their panels, arrow keys, at 360 and 390 px', async () => {
    await page.goto(`${base}/miniapp?mockIdToken=${idToken()}`);
    await page.getByTestId('quota-left').waitFor();
    for (const width of [360, 390]) {
      await page.setViewportSize({ width, height: 844 });
      for (const lang of ['th', 'en'] as const) {
        const words = MINI_TEXT[lang];
        await page.getByRole('button', { name: lang === 'th' ? 'ไทย' : 'EN', exact: true }).click();
        const where = `@${width} ${lang}`;
        const tablist = page.getByRole('tablist');
        expect(await tablist.count(), where).toBe(1);
        const check = tablist.getByRole('tab', { name: words.tabCheck, exact: true });
        const today = tablist.getByRole('tab', { name: words.tabToday, exact: true });
        expect(await tablist.getByRole('tab').count(), where).toBe(2);
        await check.click();
        // Each tab names the panel it controls, and that panel is labelled by its tab (so a screen reader says "Today, tab panel").
        for (const tab of [check, today]) {
          const panelId = await tab.getAttribute('aria-controls');
          expect(panelId, where).toBeTruthy();
          const panel = page.locator(`[id="${panelId}"]`);
          expect(await panel.getAttribute('role'), where).toBe('tabpanel');
          expect(await panel.getAttribute('aria-labelledby'), where).toBe(await tab.getAttribute('id'));
        }
        const checkPanel = page.getByRole('tabpanel', { name: words.tabCheck, exact: true });
        const todayPanel = page.getByRole('tabpanel', { name: words.tabToday, exact: true });
        const state = async () => ({
          check: await check.getAttribute('aria-selected'),
          today: await today.getAttribute('aria-selected'),
          focused: await page.evaluate(() => document.activeElement?.getAttribute('role') + ':' + document.activeElement?.textContent),
          // Only the selected tab is in the Tab order (roving tabindex).
          tabindex: [await check.getAttribute('tabindex'), await today.getAttribute('tabindex')],
        });
        expect(await state(), where).toMatchObject({ check: 'true', today: 'false', tabindex: ['0', '-1'] });
        expect(await checkPanel.isVisible(), where).toBe(true);
        expect(await todayPanel.isVisible(), where).toBe(false);
        // The keyboard: Right moves to and selects the next tab, wrapping; Left the previous; Home and End the ends.
        await check.focus();
        await page.keyboard.press('ArrowRight');
        expect(await state(), `${where} ArrowRight`).toEqual({
          check: 'false',
          today: 'true',
          focused: `tab:${words.tabToday}`,
          tabindex: ['-1', '0'],
        });
        await todayPanel.waitFor();
        expect(await checkPanel.isVisible(), where).toBe(false);
        await page.keyboard.press('ArrowRight');
        expect(await state(), `${where} ArrowRight wraps`).toMatchObject({ check: 'true', focused: `tab:${words.tabCheck}` });
        await page.keyboard.press('ArrowLeft');
        expect(await state(), `${where} ArrowLeft wraps`).toMatchObject({ today: 'true', focused: `tab:${words.tabToday}` });
        await page.keyboard.press('Home');
        expect(await state(), `${where} Home`).toMatchObject({ check: 'true', focused: `tab:${words.tabCheck}` });
        await page.keyboard.press('End');
        expect(await state(), `${where} End`).toMatchObject({ today: 'true', focused: `tab:${words.tabToday}` });
        // Tab from the selected tab goes into its panel, not to the other tab.
        await page.keyboard.press('Tab');
        expect(await page.evaluate(() => !!document.activeElement?.closest('[role="tabpanel"]')), `${where} Tab`).toBe(true);
        await check.click();
        await noOverflow(`tabs ${where}`);
      }
    }
  });

  // Last: its genuine 75 THB check would change the figures the tests above count.
  it('an expected amount that is no amount is told in Thai beside the field; a price tag like ฿75.- is read', async () => {
    await page.goto(`${base}/miniapp?mockIdToken=${idToken()}`);
    await page.getByRole('button', { name: 'ไทย', exact: true }).click();
    const amount = page.getByLabel(MINI_TEXT.th.expected);
    const field = page.locator('.field', { has: amount });
    const { transRef } = await bank.register({ amount: 75 });
    const slip = await slipFile(transRef);
    await amount.fill('75 บาทครับ');
    await page.getByTestId('slip-input').setInputFiles(slip);
    await expect.poll(() => field.locator('.field-error').textContent()).toBe(MINI_TEXT.th.expectedInvalid);
    expect(await page.locator('body').innerText()).not.toMatch(/pattern|querystring|Invalid/);
    // The price-tag way of writing 75 baht: checked against 75.00.
    await amount.fill('฿75.-');
    await page.getByTestId('slip-input').setInputFiles(slip);
    await expect.poll(() => resultCard().getAttribute('data-variant')).toBe('genuine');
    expect(await field.locator('.field-error').count()).toBe(0);
    await amount.fill('');
  });
});
