/**
 * Browser end-to-end test of the owner dashboard: the real service (SQLite, inline outbox worker) on
 * loopback, the sandbox bank as checker, a local webhook receiver, and Debian's Chromium driven by
 * playwright-core. Screenshots of every screen at 360, 390 and 1280 px go to test-output/screenshots/.
 * At 360 and 390 px every screen is checked for horizontal overflow, thumb-sized controls and (in both
 * languages) raw codes or untranslated keys in visible text. Result-card screenshots (fresh, replay,
 * duplicate, mismatch; Thai and English, 390 px) go to docs/screens/ with SLIPCHECK_UPDATE_SCREENS=1.
 */
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Container } from '../../src/container.js';
import type { FastifyInstance } from 'fastify';
import { launchChromium, thaiContext, warnIfNoChromium, HAS_CHROMIUM } from '../helpers/browser.js';
import { ensureWebBuilt, startServedApp } from '../helpers/served-app.js';
import { startSandbox } from '../helpers/sandbox.js';
import { th } from '../../../web/src/i18n/th.js';
import { en } from '../../../web/src/i18n/en.js';

warnIfNoChromium('dashboard e2e');

/** The fields every simulated verify answer in the browser shares (each test sets status, amount, sender). */
const SIMULATED_RECORD = {
  bankName: null,
  senderAccount: 'XXX-X-12345-X',
  receiverName: 'บจก. ร้านกาแฟ ทดสอบ',
  receiverAccount: 'xxx-xxx660-9',
  transDate: '2026-11-19T02:00:00.000Z',
  errorMessage: null,
  createdAt: '2026-11-21T05:00:00.000Z',
  duplicate: false,
  cached: false,
  latencyMs: 900,
  environment: 'live',
  source: 'DASHBOARD',
  clientRef: null,
  stale: false,
  quota: { used: 2, limit: 2000, remaining: 1998 },
};

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../../../..');
const SHOTS = path.resolve(HERE, '../../test-output/screenshots');
const CARD_SHOTS = process.env.SLIPCHECK_UPDATE_SCREENS === '1' ? path.join(REPO, 'docs/screens') : SHOTS;
const SHOP_NAME = 'ร้านกาแฟคุณยายสมศรีและผองเพื่อนสาขาถนนเจริญกรุงแขวงบางรักกรุงเทพมหานคร';
const EMAIL = `owner+${Date.now()}@example.com`;
const PASSWORD = 'correct horse battery staple';
const PAYEE_ACCOUNT = '1234566609';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

describe.skipIf(!HAS_CHROMIUM)('dashboard end to end (Chromium)', { timeout: 90_000 }, () => {
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let c: Container;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let receiver: http.Server;
  let receiverUrl: string;
  const received: Received[] = [];
  let dataDir: string;
  let slipFile: string;
  let apiKey = '';
  let webhookSecret = '';

  async function shot(name: string, p: Page = page) {
    for (const width of [360, 390, 1280]) {
      await p.setViewportSize({ width, height: width < 600 ? 844 : 860 });
      // Wait for the resize to reach the page (a frame), not a fixed time.
      await p.waitForFunction((w) => window.innerWidth === w, width);
      await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
      if (width < 600) await expectPhoneLayout(p, `${name}@${width}`);
      if (width === 390) await expectNoLeaks(p, name);
      // A full-page shot of a scrolled page draws the sticky bar mid-page: shoot from the top.
      // (Re-issued on each poll: a smooth scroll still running would otherwise win.)
      await p.waitForFunction(() => {
        window.scrollTo({ top: 0, behavior: 'instant' });
        return window.scrollY === 0;
      });
      await p.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
    }
    await p.setViewportSize({ width: 1280, height: 860 });
  }

  /** At 360 px: nothing wider than the screen, and every control a thumb can hit (>= 44 px tall). */
  async function expectPhoneLayout(p: Page, name: string) {
    const report = await p.evaluate(() => {
      const vw = document.documentElement.clientWidth;
      const overflow = document.documentElement.scrollWidth - vw;
      const small: string[] = [];
      let checked = 0;
      const sel =
        'button, .btn, input:not([type=checkbox]):not([type=radio]):not(.sr-only), select, summary, .nav-link, .check label, .segmented label, .alert-action, .auth-links a';
      for (const el of Array.from(document.querySelectorAll<HTMLElement>(sel))) {
        const r = el.getBoundingClientRect();
        if (!r.width || !r.height || el.closest('dialog:not([open])')) continue;
        checked++;
        if (r.height < 43.5)
          small.push(
            `${el.tagName.toLowerCase()}.${el.className} "${(el.textContent ?? '').trim().slice(0, 30)}" ${Math.round(r.height)}px`,
          );
      }
      return { overflow, small, checked };
    });
    expect(report.overflow, `${name}: horizontal overflow`).toBeLessThanOrEqual(0);
    expect(report.small, `${name}: touch targets under 44 px`).toEqual([]);
    expect(report.checked, `${name}: no controls measured`).toBeGreaterThan(0);
  }

  /**
   * Words, not codes: visible text (codes shown on purpose as a secondary detail are marked .code-detail
   * or .mono) holds no untranslated key, no ERROR_CODE, no internal actor, no "round 0"; in Thai, no
   * English plan name or raw environment either.
   */
  async function expectNoLeaks(p: Page, name: string) {
    const text = await p.evaluate(() => {
      const clone = document.body.cloneNode(true) as HTMLElement;
      clone.querySelectorAll('.code-detail, .mono, script, style, svg, dialog:not([open])').forEach((el) => el.remove());
      document.body.appendChild(clone);
      clone.style.position = 'absolute';
      clone.style.left = '-10000px';
      const t = clone.innerText;
      clone.remove();
      return t;
    });
    const lang = await p.evaluate(() => document.documentElement.lang);
    const visible = text.replace(/https?:\/\/\S+/g, ' ').replace(/\S+@\S+/g, ' ');
    const bad: string[] = [];
    for (const re of [
      /\b[a-z]{3,}(?:\.[a-z_]{2,}[A-Za-z_]*)+\b/g,
      /\b[A-Z]{2,}(?:_[A-Z0-9]+)+\b/g,
      /\b(?:operator|user):\S+/g,
      /\banonymous\b/g,
      /รอบที่ 0|round 0\b/g,
    ]) {
      for (const m of visible.matchAll(re)) bad.push(m[0]);
    }
    if (lang === 'th') for (const m of visible.matchAll(/7-day trial|สภาพแวดล้อม\s*(?:live|test)\b|\bEnvironment\b/g)) bad.push(m[0]);
    expect(bad, `${name} [${lang}]: raw codes or untranslated text on screen`).toEqual([]);
  }

  const heading = (p: Page, text: string | RegExp) => p.getByRole('heading', { level: 1, name: text });

  beforeAll(async () => {
    ensureWebBuilt();
    fs.mkdirSync(SHOTS, { recursive: true });
    bank = await startSandbox();
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => {
        body += d;
      });
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/slipcheck`;

    ({ c, app, base, dataDir } = await startServedApp(bank.url, { WEBHOOK_ALLOW_PRIVATE: 'true' }));

    browser = await launchChromium();
    ctx = await thaiContext(browser, {
      viewport: { width: 1280, height: 860 },
    });
    page = await ctx.newPage();
    page.setDefaultTimeout(15_000);
  }, 120_000);

  afterAll(async () => {
    await ctx?.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await (c as unknown as { worker?: { stop(): Promise<void> | void } })?.worker?.stop?.();
    await c?.close().catch(() => undefined);
    await bank?.close().catch(() => undefined);
    await new Promise((r) => receiver?.close(r));
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    if (slipFile) fs.rmSync(slipFile, { force: true });
  }, 60_000);

  it('sends a signed-out visitor to login and signs a new owner up on the trial', async () => {
    await page.goto(`${base}/`);
    await expect.poll(() => page.url()).toContain('/login');
    await heading(page, 'เข้าสู่ระบบ').waitFor();
    await shot('01-login');
    await page.getByRole('link', { name: /สมัครใช้งาน/ }).click();
    await heading(page, /สมัครใช้งาน/).waitFor();
    await page.getByText('Growth').first().waitFor();
    await page.getByLabel('ชื่อร้าน').fill(SHOP_NAME);
    await page.getByLabel('อีเมล').fill(EMAIL);
    await page.getByLabel('รหัสผ่าน').fill(PASSWORD);
    await page.locator('label.plan-card', { hasText: 'Growth' }).click();
    await shot('02-signup');
    await page.getByRole('button', { name: 'สร้างบัญชีและเริ่มทดลองใช้' }).click();
    await heading(page, 'ภาพรวม').waitFor();
    await expect.poll(() => page.locator('main').innerText()).toMatch(/เหลือเวลาทดลองใช้ [67] วัน/);
    expect(await page.locator('main').innerText()).toContain('ยังไม่มีบัญชีรับเงิน');
    // A trial's allowance is the trial's, not a monthly one that "resets" (issue 21).
    const quotaCard = page.locator('section.card').filter({ has: page.getByRole('heading', { name: th['overview.quota'] }) });
    expect(await quotaCard.innerText()).toContain(th['overview.trialQuota'].replace('{n}', '50').replace('{days}', '7'));
    expect(await quotaCard.innerText()).not.toContain('รีเซ็ตใน');
    await shot('03-overview-trial');
  });

  it('keeps the session across a reload through the refresh cookie; on the trial "create key" is disabled with the reason', async () => {
    await page.goto(`${base}/keys`);
    await heading(page, 'API คีย์').waitFor();
    await page.getByText('การใช้ API ต้องใช้แพ็กเกจแบบชำระเงิน').first().waitFor();
    const opener = page.getByRole('button', { name: 'สร้างคีย์' }).first();
    expect(await opener.isDisabled()).toBe(true);
    // The reason is tied to the button, and says how to upgrade (the shop id is on Settings).
    const why = await page.locator(`#${await opener.getAttribute('aria-describedby')}`).innerText();
    expect(why).toContain('ชำระค่าแพ็กเกจ');
    expect(await page.locator('main').innerText()).toContain('รหัสร้าน');
    await shot('04-keys-trial-disabled');
  });

  it('creates a live key once the operator has recorded the payment', async () => {
    const shop = await c.db.selectFrom('shops').select(['id', 'plan_code']).where('name', '=', SHOP_NAME).executeTakeFirstOrThrow();
    expect(shop.plan_code).toBe('TRIAL');
    await c.shops.setPlan(shop.id, 'GROWTH', 'operator:e2e');
    await page.reload();
    await heading(page, 'API คีย์').waitFor();
    const opener = page.getByRole('button', { name: 'สร้างคีย์' }).first();
    await expect.poll(() => opener.isDisabled()).toBe(false);
    await opener.click();
    const dialog = page.getByRole('dialog');
    // Keyboard: Tab stays inside the modal, Escape closes it and focus returns to the opener.
    await dialog.getByLabel('ชื่อคีย์').waitFor();
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => !!document.activeElement?.closest('dialog[open]')), `tab ${i} left the dialog`).toBe(true);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await opener.evaluate((el) => el === document.activeElement)).toBe(true);
    await opener.click();
    await dialog.getByLabel('ชื่อคีย์').fill('เว็บไซต์ร้าน');
    await dialog.getByLabel(/อ่านข้อมูล/).check();
    await dialog.getByRole('button', { name: 'สร้างคีย์' }).click();
    const secret = page.locator('.secret');
    await secret.waitFor();
    apiKey = (await secret.innerText()).trim();
    expect(apiKey).toMatch(/^sk_live_[A-Za-z0-9_-]{20,}$/);
    await expect.poll(() => page.locator('.cards-list').innerText()).toContain('เว็บไซต์ร้าน');
    await shot('05-keys-created');
    // The key works against the public API and belongs to this shop.
    const me = await fetch(`${base}/api/v1/me`, { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(me.status).toBe(200);
  });

  it('adds a payee account, showing only its last 4 digits', async () => {
    await page.getByRole('link', { name: 'บัญชีรับเงิน' }).first().click();
    await heading(page, 'บัญชีรับเงิน').waitFor();
    await page.getByText('ถ้าไม่มีบัญชีรับเงิน ทุกสลิปจะถูกปฏิเสธ', { exact: false }).first().waitFor();
    // The bank list is the shared table: BAAC, EXIM and SME are there.
    await page.getByRole('button', { name: 'เพิ่มบัญชี' }).first().click();
    for (const code of ['034', '035', '098'])
      expect(await page.getByRole('dialog').locator(`option[value="${code}"]`).count(), code).toBe(1);
    await page.keyboard.press('Escape');
    await shot('06-payees-empty');
    await page.getByRole('button', { name: 'เพิ่มบัญชี' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('ธนาคาร', { exact: true }).selectOption('004');
    // A wrong number is told in Thai beside its field, never as the server's English rule.
    await dialog.getByLabel('เลขที่บัญชี').fill('12ab-34');
    await dialog.getByLabel('ชื่อบัญชี').fill('บจก. ร้านกาแฟ ทดสอบ');
    await dialog.getByRole('button', { name: 'บันทึก' }).click();
    const numberField = dialog.locator('.field', { has: page.getByLabel('เลขที่บัญชี') });
    await expect.poll(() => numberField.locator('.field-error').textContent()).toBe(th['payees.error.accountNumber']);
    expect(await dialog.getByLabel('เลขที่บัญชี').getAttribute('aria-invalid')).toBe('true');
    expect(await dialog.innerText()).not.toMatch(/accountNumber|digits/);
    await dialog.getByLabel('เลขที่บัญชี').fill(PAYEE_ACCOUNT);
    expect(await numberField.locator('.field-error').count()).toBe(0);
    await dialog.getByLabel('ชื่อบัญชี').fill('บจก. ร้านกาแฟ ทดสอบ');
    await dialog.getByLabel('ตั้งเป็นบัญชีหลัก').check();
    await dialog.getByRole('button', { name: 'บันทึก' }).click();
    await page.locator('.payee', { hasText: '6609' }).waitFor();
    expect(await page.content()).not.toContain(PAYEE_ACCOUNT);
    await shot('07-payees');
  });

  it('the phone menu: Escape closes it and gives the keyboard back to the menu button', async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    try {
      const button = page.locator('.menu-btn');
      await button.click();
      expect(await button.getAttribute('aria-expanded')).toBe('true');
      await page.locator('#sidenav .nav-link').first().focus();
      await page.keyboard.press('Escape');
      await expect.poll(() => button.getAttribute('aria-expanded')).toBe('false');
      expect(await button.evaluate((el) => el === document.activeElement)).toBe(true);
      expect(await page.locator('#sidenav .nav-link').first().isVisible()).toBe(false);
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
  });

  it('a list that cannot load says so, and never that the shop has none (no payee account, no key, no results)', async () => {
    // The service cannot be reached (a deploy, a phone between cells): the three lists fail to load.
    const lists = ['**/api/dashboard/payees', '**/api/dashboard/api-keys', '**/api/dashboard/transactions?*'];
    for (const url of lists) await page.route(url, (route) => route.abort('connectionrefused'));
    try {
      await page.getByRole('link', { name: 'ภาพรวม' }).first().click();
      await heading(page, 'ภาพรวม').waitFor();
      for (const [route, title, emptyWords] of [
        ['/payees', th['payees.title'], [th['payees.emptyTitle'], th['payees.emptyList']]],
        ['/keys', th['keys.title'], [th['keys.empty']]],
        ['/transactions', th['tx.title'], [th['tx.empty']]],
      ] as const) {
        await page.evaluate((r) => {
          history.pushState({}, '', r);
          dispatchEvent(new PopStateEvent('popstate'));
        }, route);
        await heading(page, title).waitFor();
        await page.getByText(th['error.network']).first().waitFor();
        const main = await page.locator('main').innerText();
        for (const words of emptyWords) expect(main, `${route}: "${words}" while the list did not load`).not.toContain(words);
      }
    } finally {
      for (const url of lists) await page.unroute(url);
    }
    // Back on the network, the payee account is there again.
    await page.evaluate(() => {
      history.pushState({}, '', '/payees');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    await page.locator('.payee', { hasText: '6609' }).waitFor();
  });

  it('a service that is briefly down (502/503 from the proxy) does not sign the owner out; a refused session does', async () => {
    const refresh = '**/api/dashboard/auth/refresh';
    const down = (route: { fulfill(o: object): Promise<void> }) =>
      route.fulfill({ status: 502, contentType: 'text/html', body: '<html><body>502 Bad Gateway</body></html>' });
    // Mid-session: the access token has run out (a 401), and the refresh meets the proxy's 502.
    await page.route('**/api/dashboard/payees', (route) =>
      route.fulfill({
        status: 401,
        contentType: 'application/json',
        body: JSON.stringify({ success: false, statusCode: 401, code: 'UNAUTHORIZED', message: 'expired' }),
      }),
    );
    await page.route(refresh, down);
    try {
      await page.getByRole('link', { name: 'ภาพรวม' }).first().click();
      await heading(page, 'ภาพรวม').waitFor();
      await page.getByRole('link', { name: 'บัญชีรับเงิน' }).first().click();
      await heading(page, 'บัญชีรับเงิน').waitFor();
      await page.locator('main .alert-error').first().waitFor();
      await page.waitForTimeout(500);
      expect(page.url(), 'signed out by a 502').not.toContain('/login');
    } finally {
      await page.unroute('**/api/dashboard/payees');
    }
    // Opening the dashboard while the service is down: it says so and offers to try again, not the sign-in page.
    await page.goto(`${base}/payees`);
    await page.getByText(th['error.server']).first().waitFor();
    expect(page.url()).not.toContain('/login');
    await page.unroute(refresh);
    await page.getByRole('button', { name: th['common.retry'] }).click();
    await page.locator('.payee', { hasText: '6609' }).waitFor();
    // A refresh the service refuses (the session was revoked elsewhere) still ends at the sign-in page,
    // which brings the owner back to this page afterwards.
    const unauthorized = (code: string) => (route: { fulfill(o: object): Promise<void> }) =>
      route.fulfill({
        status: 401,
        contentType: 'application/json',
        body: JSON.stringify({ success: false, statusCode: 401, code, message: code }),
      });
    await page.route('**/api/dashboard/payees', unauthorized('UNAUTHORIZED'));
    await page.route(refresh, unauthorized('REFRESH_INVALID'));
    try {
      await page.getByRole('link', { name: 'ภาพรวม' }).first().click();
      await page.getByRole('link', { name: 'บัญชีรับเงิน' }).first().click();
      await heading(page, 'เข้าสู่ระบบ').waitFor();
    } finally {
      await page.unroute('**/api/dashboard/payees');
      await page.unroute(refresh);
    }
    await page.getByLabel('อีเมล').fill(EMAIL);
    await page.getByLabel('รหัสผ่าน').fill(PASSWORD);
    await page.getByRole('button', { name: 'เข้าสู่ระบบ', exact: true }).click();
    await page.locator('.payee', { hasText: '6609' }).waitFor();
  });

  it('checks an uploaded sandbox slip, and the result appears live in Transactions', async () => {
    const { transRef } = await bank.register({
      amount: 1250.5,
      sender: { name: 'นาย สมชาย ใจดี', nameEn: 'MR SOMCHAI JAIDEE', account: '9876543210' },
      receiver: { name: 'บจก. ร้านกาแฟ ทดสอบ', account: PAYEE_ACCOUNT, bankCode: '004' },
    });
    const png = await bank.slip(transRef);
    slipFile = path.join(os.tmpdir(), `slipcheck-e2e-${transRef}.png`);
    fs.writeFileSync(slipFile, png);

    // A second tab watches Transactions over server-sent events while the first one uploads.
    const watcher = await ctx.newPage();
    await watcher.goto(`${base}/transactions`);
    await heading(watcher, 'รายการตรวจสลิป').waitFor();
    await watcher.getByRole('status').filter({ hasText: 'อัปเดตสด' }).waitFor();
    expect(await watcher.locator('.tx-list').count()).toBe(0);

    await page.getByRole('link', { name: 'ตรวจสลิป' }).first().click();
    await heading(page, 'ตรวจสลิป').waitFor();
    await shot('08-check-empty');
    await page.locator('[data-testid="slip-input"]').setInputFiles(slipFile);
    await page.getByRole('heading', { name: 'สลิปจริง เงินเข้าบัญชีร้านแล้ว' }).waitFor({ timeout: 30_000 });
    expect(await page.locator('.result').innerText()).toContain('฿1,250.50');
    await shot('09-check-result');

    const row = watcher.locator('.tx-list li', { hasText: transRef });
    await row.waitFor({ timeout: 30_000 });
    expect(await row.innerText()).toContain('฿1,250.50');
    await shot('10-transactions-live', watcher);
    await row.getByRole('link').click();
    await heading(watcher, 'รายละเอียดผลการตรวจ').waitFor();
    // The heading renders before the record has loaded: wait for the data, not the frame.
    await watcher.locator('main .result').getByText(transRef).waitFor();
    await shot('11-transaction-detail', watcher);
    await watcher.close();
  });

  it('the expected amount as Thai counters write it ("450.-", "฿450") is checked; one that is no amount is told in Thai beside the field', async () => {
    const { transRef } = await bank.register({
      amount: 450,
      sender: { name: 'นาง สมหญิง รักดี', account: '9876543211' },
      receiver: { name: 'บจก. ร้านกาแฟ ทดสอบ', account: PAYEE_ACCOUNT, bankCode: '004' },
    });
    const file = path.join(os.tmpdir(), `slipcheck-e2e-${transRef}.png`);
    fs.writeFileSync(file, await bank.slip(transRef));
    try {
      await page.evaluate(() => {
        history.pushState({}, '', '/check');
        dispatchEvent(new PopStateEvent('popstate'));
      });
      await heading(page, th['check.title']).waitFor();
      const amount = page.getByLabel(th['check.expected']);
      const field = page.locator('main .field', { has: amount });
      // Not an amount: said beside the field before anything is sent (not the schema's English rule).
      const sent: string[] = [];
      const onRequest = (r: { url(): string }) => {
        if (r.url().includes('/api/dashboard/verify')) sent.push(r.url());
      };
      page.on('request', onRequest);
      for (const typed of ['45O', '450.505']) {
        await amount.fill(typed);
        await page.locator('[data-testid="slip-input"]').setInputFiles(file);
        await expect.poll(() => field.locator('.field-error').textContent()).toBe(th['check.expectedInvalid']);
        expect(await amount.getAttribute('aria-invalid')).toBe('true');
        expect(await page.locator('main').innerText()).not.toMatch(/pattern|querystring|Invalid/);
      }
      page.off('request', onRequest);
      expect(sent).toEqual([]);
      // "450.-" is how a Thai price tag writes 450 baht: the slip is checked against 450.00.
      await amount.fill('450.-');
      await page.getByRole('button', { name: th['check.again'] }).click();
      await page.getByRole('heading', { name: th['result.genuine.title'] }).waitFor({ timeout: 30_000 });
      expect(await field.locator('.field-error').count()).toBe(0);
      // The same picture with "฿450": the same amount, so the earlier record (a replay), not a refusal.
      await amount.fill('฿450');
      await page.getByRole('button', { name: th['check.again'] }).click();
      await page.getByRole('heading', { name: th['result.replay.title'] }).waitFor({ timeout: 30_000 });
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it('delivers a signed webhook test event to a local receiver', async () => {
    await page.getByRole('link', { name: 'เว็บฮุก' }).first().click();
    await heading(page, 'เว็บฮุก').waitFor();
    await page.getByRole('button', { name: 'เพิ่มปลายทาง' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('URL ปลายทาง').fill('https://user:secret@example.com/hook');
    await dialog.getByRole('button', { name: 'บันทึก' }).click();
    // The reason in Thai (issue 21); the server's English words only inside the "for support" detail.
    await dialog.getByText(th['error.INVALID_WEBHOOK_URL.HAS_CREDENTIALS']).waitFor();
    expect(await dialog.locator('[data-testid="webhook-url-reason"] details').textContent()).toContain('url must not contain credentials');
    await dialog.getByLabel('URL ปลายทาง').fill(receiverUrl);
    await dialog.getByRole('button', { name: 'บันทึก' }).click();
    const secret = page.locator('.secret');
    await secret.waitFor();
    webhookSecret = (await secret.innerText()).trim();
    expect(webhookSecret.length).toBeGreaterThan(16);
    const before = received.length;
    await page.getByRole('button', { name: 'ส่งเหตุการณ์ทดสอบ' }).click();
    await expect.poll(() => received.length, { timeout: 15_000 }).toBeGreaterThan(before);
    const hit = received[received.length - 1];
    const sig = String(hit.headers['x-service-signature'] ?? '');
    const t = /t=(\d+)/.exec(sig)?.[1];
    const v1 = [...sig.matchAll(/v1=([0-9a-f]{64})/g)].map((m) => m[1]);
    expect(t).toBeTruthy();
    expect(v1).toContain(createHmac('sha256', webhookSecret).update(`${t}.${hit.body}`).digest('hex'));
    expect(hit.headers['x-service-attempt']).toBe('1'); // the first delivery is attempt 1, as the screen says below
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'รีเฟรช' }).first().click();
          return page
            .locator('[data-testid="deliveries"]')
            .innerText()
            .catch(() => '');
        },
        { timeout: 15_000 },
      )
      .toContain('ส่งสำเร็จ');
    expect(await page.locator('[data-testid="deliveries"]').innerText()).toContain('ส่งครั้งที่ 1 จาก 1');
    await shot('12-webhooks');
  });

  it('linking a LINE official account: a value in the wrong box is told in Thai beside that box, not as the rule in English', async () => {
    await page.getByRole('link', { name: 'LINE' }).first().click();
    await heading(page, th['line.title']).waitFor();
    await page.getByRole('button', { name: th['line.link'] }).first().click();
    const dialog = page.getByRole('dialog');
    const box = (label: string) => dialog.locator('.field', { has: page.getByLabel(label, { exact: true }) });
    for (const [id, secret, token, wrong, key] of [
      ['LINE-2000', 'a'.repeat(32), 'x'.repeat(172), 'Channel ID', 'line.error.channelId'],
      ['2000200002', 'secret with spaces', 'x'.repeat(172), 'Channel secret', 'line.error.channelSecret'],
      // The commonest slip: the 32-character secret pasted into the token box as well.
      ['2000200002', 'a'.repeat(32), 'short token', 'Channel access token', 'line.error.accessToken'],
    ] as const) {
      await dialog.getByLabel('Channel ID', { exact: true }).fill(id);
      await dialog.getByLabel('Channel secret', { exact: true }).fill(secret);
      await dialog.getByLabel('Channel access token', { exact: true }).fill(token);
      await dialog.getByRole('button', { name: th['line.link'] }).click();
      await expect.poll(() => box(wrong).locator('.field-error').textContent(), { message: wrong }).toBe(th[key]);
      expect(await dialog.innerText(), wrong).not.toMatch(/must be|does not look like|Invalid/);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    // A linked account (as the service lists it; linking needs LINE itself): its state in words, not "active".
    await page.route('**/api/dashboard/line', async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as { data: { channels: unknown[] } };
      body.data.channels = [
        {
          id: 'lch_e2e',
          channelId: '2000200002',
          botName: 'ร้านกาแฟ OA',
          webhookUrl: `${base}/api/line/webhook/e2e`,
          status: 'active',
          createdAt: new Date().toISOString(),
        },
      ];
      await route.fulfill({ response: res, json: body });
    });
    try {
      await page.getByRole('link', { name: 'ภาพรวม' }).first().click();
      await heading(page, 'ภาพรวม').waitFor();
      await page.getByRole('link', { name: 'LINE' }).first().click();
      const account = page.locator('main li', { hasText: 'ร้านกาแฟ OA' });
      await account.waitFor();
      expect(await account.locator('.tag').innerText()).toBe(th['line.status.active']);
      expect(await page.locator('main').innerText()).not.toMatch(/\bactive\b/);
    } finally {
      await page.unroute('**/api/dashboard/line');
    }
  });

  it('shows the overview with the day chart, then settings and security, and switches to English', async () => {
    await page.getByRole('link', { name: 'ภาพรวม' }).first().click();
    await heading(page, 'ภาพรวม').waitFor();
    await page.locator('.chart-svg').waitFor();
    await shot('13-overview');
    await page.getByRole('link', { name: 'ตั้งค่า' }).first().click();
    await heading(page, 'ตั้งค่า').waitFor();
    await page.getByLabel('ชื่อร้าน').waitFor();
    await shot('14-settings');
    // A name the server would refuse is told in Thai beside the name, not under the privacy section in English.
    const shopForm = page.locator('form', { has: page.getByLabel('ชื่อร้าน') });
    const nameField = shopForm.locator('.field', { has: page.getByLabel('ชื่อร้าน') });
    for (const [name, key] of [
      ['ร้าน\u202Eกาแฟ', 'form.nameBadChars'],
      ['   ', 'form.nameEmpty'],
    ] as const) {
      await page.getByLabel('ชื่อร้าน').fill(name);
      await shopForm.getByRole('button', { name: 'บันทึก' }).click();
      await expect.poll(() => nameField.locator('.field-error').textContent()).toBe(th[key]);
      expect(await shopForm.innerText()).not.toMatch(/Invalid|shopName|must/);
    }
    await page.getByLabel('ชื่อร้าน').fill(SHOP_NAME);
    await page.getByRole('link', { name: 'ความปลอดภัย' }).first().click();
    await heading(page, 'ความปลอดภัย').waitFor();
    await page.getByText('อุปกรณ์นี้').first().waitFor();
    await shot('15-security');
    await page.getByRole('button', { name: 'EN' }).click();
    await heading(page, 'Security').waitFor();
    // The choice is the person's, kept by the server: a reload and a fresh browser (no local storage) keep English.
    await page.reload();
    await heading(page, 'Security').waitFor();
    const other = await browser.newContext({ locale: 'th-TH', viewport: { width: 390, height: 844 } });
    try {
      const p2 = await other.newPage();
      await p2.goto(`${base}/login`);
      await p2.getByLabel('อีเมล').fill(EMAIL);
      await p2.getByLabel('รหัสผ่าน').fill(PASSWORD);
      await p2.getByRole('button', { name: 'เข้าสู่ระบบ' }).click();
      await heading(p2, 'Overview').waitFor();
    } finally {
      await other.close();
    }
    // ...and the shop's language for LINE and mails did not change with it.
    const shopRow = await c.db.selectFrom('shops').select('language').where('name', '=', SHOP_NAME).executeTakeFirstOrThrow();
    expect(shopRow.language).toBe('th');
    await page.getByRole('link', { name: 'Overview' }).first().click();
    await heading(page, 'Overview').waitFor();
    await shot('16-overview-en');
    await page.getByRole('link', { name: 'Check a slip' }).first().click();
    await page.locator('[data-testid="slip-input"]').setInputFiles(slipFile);
    // The same picture again within 24 h: the earlier record comes back as a warning, never a green "paid".
    await page.getByRole('heading', { name: 'Already checked: do not deliver twice' }).waitFor({ timeout: 30_000 });
    const card = page.locator('main .result');
    expect(await card.getAttribute('class')).toContain('result-warn');
    expect(await card.innerText()).toMatch(/already checked at .+\(result: Verified|already checked at .+\(result: /);
    await shot('17-check-replay-en');
  });

  it('explains other results and error states in plain Thai (answers simulated in the browser)', async () => {
    await page.getByRole('button', { name: 'ไทย' }).click();
    await page.getByRole('link', { name: 'ตรวจสลิป' }).first().click();
    await heading(page, 'ตรวจสลิป').waitFor();
    const base0 = {
      ...SIMULATED_RECORD,
      id: 'txn_sim',
      verified: false,
      transRef: 'SIM0001',
      amount: 980.25,
      bankCode: '014',
      senderName: 'นาง สมหญิง รักดี',
    };
    const cases: { name: string; rec: Record<string, unknown>; title: string }[] = [
      {
        name: '18-result-stale-success',
        rec: { status: 'SUCCESS', verified: true, errorCode: null, stale: true },
        title: 'สลิปจริง แต่เป็นการโอนเมื่อนานมาแล้ว',
      },
      { name: '19-result-fraud', rec: { status: 'FRAUD', errorCode: 'SLIP_NOT_FOUND' }, title: 'สลิปปลอมหรือถูกแก้ไข' },
      {
        name: '20-result-pending',
        rec: { status: 'PROVIDER_ERROR', errorCode: 'SLIP_PENDING', amount: null },
        title: 'ธนาคารยังไม่เปิดข้อมูลรายการนี้',
      },
      {
        name: '21-result-receiver-unverified',
        rec: { status: 'RECEIVER_MISMATCH', errorCode: 'RECEIVER_UNVERIFIED' },
        title: 'ยืนยันบัญชีผู้รับไม่ได้',
      },
      {
        name: '22-result-edited',
        rec: { status: 'FRAUD', errorCode: 'EDITED_SLIP', edited: true, printedAmount: 9800.25 },
        title: th['result.edited.title'],
      },
    ];
    let answer: { status: number; body: unknown } = { status: 200, body: null };
    await page.route('**/api/dashboard/verify*', (route) =>
      route.fulfill({ status: answer.status, contentType: 'application/json', body: JSON.stringify(answer.body) }),
    );
    for (const c of cases) {
      answer = { status: 200, body: { success: true, data: { ...base0, ...c.rec, id: `txn_${c.name}` } } };
      await page.locator('[data-testid="slip-input"]').setInputFiles(slipFile);
      await page.getByRole('heading', { name: c.title }).waitFor();
      expect(await page.locator('.result-next').innerText()).toContain('ควรทำอะไรต่อ');
      const card = page.locator(`main .result[aria-labelledby="res-txn_${c.name}"]`);
      // Pills from the one vocabulary (issue 21): pending is "not published yet", not a failure; stale says old slip.
      const pill = await card.locator('.badge').first().innerText();
      if (c.name === '20-result-pending') expect(pill).toBe('ธนาคารยังไม่แสดงรายการ');
      if (c.name === '18-result-stale-success') expect(pill).toContain('สลิปเก่า');
      // A raw code sits only in the closed "for support" detail, never in the card's visible text.
      const code = String(c.rec.errorCode ?? '');
      if (code) {
        const visible = await card.evaluate((el) => {
          const clone = el.cloneNode(true) as HTMLElement;
          clone.querySelectorAll('details').forEach((d) => d.remove());
          return clone.innerText || clone.textContent || '';
        });
        expect(visible, c.name).not.toContain(code);
        expect(await card.locator('details.support-detail').textContent(), c.name).toContain(code);
      }
      if (c.name === '19-result-fraud') await shot(c.name);
      // Screen readers hear the card's sentence with its amounts, never the template's {placeholders}.
      if (c.name === '22-result-edited') {
        const said = page.locator('p.sr-only[role="status"]');
        await expect.poll(() => said.textContent()).toContain('฿9,800.25');
        expect(await said.textContent()).toContain('฿980.25');
        expect(await said.textContent()).not.toMatch(/[{}]/);
      }
    }
    answer = {
      status: 402,
      body: {
        success: false,
        statusCode: 402,
        code: 'QUOTA_EXCEEDED',
        message: 'Quota exceeded',
        quota: { used: 50, limit: 50, remaining: 0 },
      },
    };
    await page.locator('[data-testid="slip-input"]').setInputFiles(slipFile);
    await page.getByRole('link', { name: 'ดูโควตาและแพ็กเกจที่หน้าภาพรวม' }).waitFor();
    answer = { status: 429, body: { success: false, statusCode: 429, code: 'RATE_LIMITED', message: 'Too many requests', retryAfter: 30 } };
    await page.locator('[data-testid="slip-input"]').setInputFiles(slipFile);
    await page.getByText('ส่งคำขอถี่เกินไป', { exact: false }).first().waitFor();
    await page.unroute('**/api/dashboard/verify*');

    // Offline: the shell says so, and a check that cannot leave the phone says why.
    await ctx.setOffline(true);
    try {
      await page.getByText('ออฟไลน์อยู่', { exact: false }).waitFor();
      await page.locator('[data-testid="slip-input"]').setInputFiles(slipFile);
      await page.getByText('ไม่มีการเชื่อมต่ออินเทอร์เน็ต', { exact: false }).waitFor();
      await shot('22-check-offline');
    } finally {
      await ctx.setOffline(false);
    }
    await page.getByText('ออฟไลน์อยู่', { exact: false }).waitFor({ state: 'hidden' });
  });

  it('result cards: fresh, replay, duplicate, mismatch (expected amount beside the bank amount), bank names isolated; both languages', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/check`);
    await page.locator('[data-testid="slip-input"]').waitFor({ state: 'attached' });
    const rec = {
      ...SIMULATED_RECORD,
      id: 'txn_card',
      verified: true,
      transRef: '016330101505CTF00789',
      amount: 1250.5,
      bankCode: '004',
      senderName: '\u202eนาย สมชาย ใจดี',
      status: 'SUCCESS',
      errorCode: null,
    };
    const cards: { name: string; rec: Record<string, unknown>; tone: string }[] = [
      { name: 'fresh', rec: {}, tone: 'result-ok' },
      { name: 'replay', rec: { cached: true }, tone: 'result-warn' },
      { name: 'duplicate', rec: { status: 'DUPLICATE', verified: false, duplicate: true, errorCode: 'DUPLICATE' }, tone: 'result-warn' },
      {
        name: 'mismatch',
        rec: {
          status: 'AMOUNT_MISMATCH',
          verified: false,
          errorCode: 'AMOUNT_MISMATCH',
          errorMessage: 'The slip amount 1,250.50 THB differs from the expected 1,500.00 THB.',
        },
        tone: 'result-warn',
      },
    ];
    let answer: unknown = null;
    await page.route('**/api/dashboard/verify*', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(answer) }),
    );
    try {
      for (const lang of ['th', 'en'] as const) {
        await page.getByRole('button', { name: lang === 'th' ? 'ไทย' : 'EN' }).click();
        await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(lang);
        for (const k of cards) {
          answer = { success: true, data: { ...rec, ...k.rec, id: `txn_${k.name}_${lang}` } };
          await page.locator('[data-testid="slip-input"]').setInputFiles(slipFile);
          const card = page.locator(`main .result[aria-labelledby="res-txn_${k.name}_${lang}"]`);
          await card.waitFor();
          expect(await card.getAttribute('class'), k.name).toContain(k.tone);
          const text = await card.innerText();
          // U+202E is removed and the name sits in its own bidi run.
          expect(text).not.toContain('\u202e');
          expect(await card.locator('bdi.bank-name').first().innerText()).toBe('นาย สมชาย ใจดี');
          if (k.name === 'mismatch') expect(await card.locator('[data-testid="expected-amount"]').innerText()).toContain('฿1,500.00');
          if (k.name === 'replay') {
            expect(text).toContain(lang === 'th' ? 'อย่าส่งของซ้ำ' : 'do not deliver twice');
            // Inside the amber replay card the pill is the replay's word and colour, not a green "genuine" (issue 21).
            const pill = card.locator('.badge').first();
            expect(await pill.innerText()).toBe((lang === 'th' ? th : en)['result.replay.pill']);
            expect(await pill.getAttribute('class')).toContain('badge-replay');
          }
          await expectNoLeaks(page, `card-${k.name}`);
          await card.screenshot({ path: path.join(CARD_SHOTS, `result-card-${k.name}-${lang}.png`) });
        }
      }
    } finally {
      await page.unroute('**/api/dashboard/verify*');
    }
    await page.getByRole('button', { name: 'ไทย' }).click();
  });

  it('invites staff: the team has data, and staff see no API-keys shortcut', async () => {
    // An address that already has an account cannot be invited: said in words for inviting staff (not
    // the sign-up advice "sign in or reset the password"), beside the address, and gone once it is edited.
    await page.evaluate(() => {
      history.pushState({}, '', '/team');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    await heading(page, th['team.title']).waitFor();
    const inviteForm = page.locator('form', { has: page.getByLabel(th['team.inviteEmail']) });
    const emailField = inviteForm.locator('.field', { has: page.getByLabel(th['team.inviteEmail']) });
    await page.getByLabel(th['team.inviteEmail']).fill(EMAIL);
    await inviteForm.getByRole('button', { name: th['team.inviteSubmit'] }).click();
    await expect.poll(() => emailField.locator('.field-error').textContent()).toBe(th['team.emailTaken']);
    expect(await inviteForm.innerText()).not.toContain(th['error.EMAIL_TAKEN']);
    await page.getByLabel(th['team.inviteEmail']).fill(`someone+${Date.now()}@example.com`);
    expect(await emailField.locator('.field-error').count()).toBe(0);
    expect(await inviteForm.locator('.alert-error, [role="alert"]').count()).toBe(0);
    await page.getByLabel(th['team.inviteEmail']).fill('');

    const token = await page.evaluate(async () => {
      const r = await fetch('/api/dashboard/auth/refresh', {
        method: 'POST',
        credentials: 'include',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      });
      const j = await r.json();
      return j.data.accessToken as string;
    });
    const staffEmail = `staff+${Date.now()}@example.com`;
    const inv = await fetch(`${base}/api/dashboard/team/invites`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Origin: base },
      body: JSON.stringify({ email: staffEmail }),
    });
    expect(inv.status).toBe(201);
    const mail = (await c.mail.list({ to: staffEmail }))[0];
    const inviteToken = /token=([^\s&]+)/.exec(mail.text ?? '')![1];
    const staff = await browser.newContext({ locale: 'th-TH', viewport: { width: 390, height: 844 }, reducedMotion: 'reduce' });
    try {
      const sp = await staff.newPage();
      await sp.goto(`${base}/accept-invite?token=${inviteToken}`);
      const pw = sp.locator('input[type="password"]');
      await pw.nth(0).fill('staff password 1234');
      await pw.nth(1).fill('staff password 1234');
      await sp.getByRole('button', { name: 'ตั้งรหัสผ่านและเข้าร่วม' }).click();
      await heading(sp, 'ภาพรวม').waitFor();
      await sp.locator('main .tx-list').first().waitFor();
      expect(await sp.locator('main a[href="/keys"]').count()).toBe(0);
      expect(await sp.locator('nav a[href="/keys"]').count()).toBe(0);
    } finally {
      await staff.close();
    }
  });

  it('every screen with data, at 360 and 390 px, in Thai and in English: no overflow, thumb-sized controls, no raw codes', async () => {
    const txId = (await c.db.selectFrom('transactions').select('id').orderBy('created_at', 'desc').executeTakeFirstOrThrow()).id;
    const screens: [string, string, string][] = [
      ['/', 'ภาพรวม', 'Overview'],
      ['/check', 'ตรวจสลิป', 'Check a slip'],
      ['/transactions', 'รายการตรวจสลิป', 'Transactions'],
      [`/transactions/${txId}`, 'รายละเอียดผลการตรวจ', 'Result details'],
      ['/payees', 'บัญชีรับเงิน', 'Payee accounts'],
      ['/keys', 'API คีย์', 'API keys'],
      ['/line', 'LINE', 'LINE'],
      ['/webhooks', 'เว็บฮุก', 'Webhooks'],
      ['/team', 'ทีมงาน', 'Team'],
      ['/settings', 'ตั้งค่า', 'Settings'],
      ['/security', 'ความปลอดภัย', 'Security'],
    ];
    // Every API request the page makes: a screen whose data is in must then stay quiet (the Transactions
    // list once reloaded itself on every render, about 50 requests a second, until the rate limit
    // answered 429 and the refresh failed too).
    const apiCalls: string[] = [];
    const onRequest = (r: { url(): string }) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/api/')) apiCalls.push(u.pathname);
    };
    page.on('request', onRequest);
    for (const lang of ['th', 'en'] as const) {
      await page.getByRole('button', { name: lang === 'th' ? 'ไทย' : 'EN' }).click();
      for (const [route, th, en] of screens) {
        // In-app navigation, as a person taps: 22 full reloads a minute would each spend a refresh-token
        // rotation and run into the refresh rate limit, which is not what this test is about.
        await page.evaluate((r) => {
          history.pushState({}, '', r);
          dispatchEvent(new PopStateEvent('popstate'));
        }, route);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(lang);
        const h1 = await page.getByRole('heading', { level: 1 }).first().innerText();
        expect(h1, route).toContain(lang === 'th' ? th : en);
        // Wait for the data, not a fixed time: no spinner left.
        await expect.poll(() => page.locator('main .loading').count(), { timeout: 15_000 }).toBe(0);
        if (route === '/') await page.locator('.chart-svg').waitFor();
        if (route === '/webhooks') await page.locator('[data-testid="deliveries"]').waitFor();
        if (route === '/team')
          await page
            .getByText(/staff\+/)
            .first()
            .waitFor();
        if (route === '/settings') expect(await page.locator('[data-testid="shop-id"]').innerText()).toMatch(/^shop_|^[A-Za-z0-9_]+$/);
        await shot(`30-${route.split('/')[1] || 'overview'}${route.includes('txn') ? '-detail' : ''}-${lang}`);
        const settled = apiCalls.length;
        await page.waitForTimeout(800);
        expect(apiCalls.slice(settled), `${route} (${lang}) keeps requesting after its data is in`).toEqual([]);
      }
    }
    page.off('request', onRequest);
    await page.getByRole('button', { name: 'ไทย' }).click();
  });

  it('erases the shop from Settings after the password, says what it means, and mails a confirmation', async () => {
    await page.evaluate(() => {
      history.pushState({}, '', '/settings');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    await heading(page, 'ตั้งค่า').waitFor();
    const card = page.locator('section.danger-zone');
    const text = await card.innerText();
    for (const words of ['24 ชั่วโมง', 'บันทึกความปลอดภัย', EMAIL]) expect(text).toContain(words);
    await card.getByRole('button', { name: 'ลบร้านและบัญชี…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('รหัสผ่านของคุณ (เพื่อยืนยัน)').fill('not my password at all');
    await dialog.getByRole('button', { name: 'ลบถาวร' }).click();
    await dialog.getByRole('alert').or(dialog.locator('.alert-error')).first().waitFor();
    await dialog.getByLabel('รหัสผ่านของคุณ (เพื่อยืนยัน)').fill(PASSWORD);
    await dialog.getByRole('button', { name: 'ลบถาวร' }).click();
    // Every session is revoked: the sign-in page says it worked and when the purge runs.
    await heading(page, 'เข้าสู่ระบบ').waitFor();
    await page.getByText('ลบร้านแล้ว').waitFor();
    await shot('40-erased');
    expect((await c.mail.list({ to: EMAIL })).some((m) => m.template === 'account_erased')).toBe(true);
    const login = await fetch(`${base}/api/dashboard/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: base },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    expect(login.status).toBe(401);
  });
});
