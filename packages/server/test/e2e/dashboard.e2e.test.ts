/**
 * Browser end-to-end test of the owner dashboard: the real service (SQLite, inline outbox worker) on
 * loopback, the sandbox bank as checker, a local webhook receiver, and Debian's Chromium driven by
 * playwright-core. Screenshots of every screen at 360, 390 and 1280 px go to test-output/screenshots/.
 */
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createSandboxBank, type SandboxBank } from '@slipcheck/sandbox-bank';
import { loadConfig } from '../../src/config.js';
import { createContainer, type Container } from '../../src/container.js';
import { buildApp } from '../../src/http/app.js';
import type { FastifyInstance } from 'fastify';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const HAS_CHROMIUM = fs.existsSync(CHROMIUM);
if (!HAS_CHROMIUM) console.warn(`[dashboard e2e] SKIPPED: ${CHROMIUM} not found. Install it with \`apt-get install -y chromium\` (.ci/run does).`);

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../../../..');
const WEB_DIST = path.join(REPO, 'packages/web/dist');
const SHOTS = path.resolve(HERE, '../../test-output/screenshots');
const SHOP_NAME = 'ร้านกาแฟคุณยายสมศรีและผองเพื่อนสาขาถนนเจริญกรุงแขวงบางรักกรุงเทพมหานคร';
const EMAIL = `owner+${Date.now()}@example.com`;
const PASSWORD = 'correct horse battery staple';
const PAYEE_ACCOUNT = '1234566609';

interface Received { headers: http.IncomingHttpHeaders; body: string }

describe.skipIf(!HAS_CHROMIUM)('dashboard end to end (Chromium)', { timeout: 90_000 }, () => {
  let bank: SandboxBank;
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
      if (width === 360) await expectPhoneLayout(p, name);
      // A full-page shot of a scrolled page draws the sticky bar mid-page: shoot from the top.
      // (Re-issued on each poll: a smooth scroll still running would otherwise win.)
      await p.waitForFunction(() => { window.scrollTo({ top: 0, behavior: 'instant' }); return window.scrollY === 0; });
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
      const sel = 'button, .btn, input:not([type=checkbox]):not([type=radio]):not(.sr-only), select, .nav-link, .check label, .segmented label, .alert-action';
      for (const el of Array.from(document.querySelectorAll<HTMLElement>(sel))) {
        const r = el.getBoundingClientRect();
        if (!r.width || !r.height || el.closest('dialog:not([open])')) continue;
        checked++;
        if (r.height < 43.5) small.push(`${el.tagName.toLowerCase()}.${el.className} "${(el.textContent ?? '').trim().slice(0, 30)}" ${Math.round(r.height)}px`);
      }
      return { overflow, small, checked };
    });
    expect(report.overflow, `${name}: horizontal overflow at 360 px`).toBeLessThanOrEqual(0);
    expect(report.small, `${name}: touch targets under 44 px`).toEqual([]);
    expect(report.checked, `${name}: no controls measured`).toBeGreaterThan(0);
  }

  const heading = (p: Page, text: string | RegExp) => p.getByRole('heading', { level: 1, name: text });

  beforeAll(async () => {
    if (!fs.existsSync(path.join(WEB_DIST, 'index.html'))) {
      const r = spawnSync('npm', ['run', 'build', '-w', 'packages/web'], { cwd: REPO, stdio: 'inherit' });
      if (r.status !== 0) throw new Error('building packages/web failed');
    }
    fs.mkdirSync(SHOTS, { recursive: true });
    bank = await createSandboxBank({ port: 0, host: '127.0.0.1' });
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => { body += d; });
      req.on('end', () => { received.push({ headers: req.headers, body }); res.writeHead(200).end('ok'); });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/slipcheck`;

    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-e2e-'));
    const config = loadConfig({
      NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'silent', CHECKER: 'sandbox', CHECKER_URL: bank.url,
      SANDBOX_AUTOSTART: 'false', WEBHOOK_ALLOW_PRIVATE: 'true', WORKER_MODE: 'inline', WORKER_POLL_MS: '100',
    });
    c = await createContainer(config);
    app = await buildApp(c, { logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    (c as unknown as { worker?: { start(): void } }).worker?.start();

    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'] });
    // Reduced motion: the app then scrolls without animation, so screenshots do not catch a scroll mid-way.
    ctx = await browser.newContext({ locale: 'th-TH', timezoneId: 'Asia/Bangkok', viewport: { width: 1280, height: 860 }, reducedMotion: 'reduce' });
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
    await shot('03-overview-trial');
  });

  it('keeps the session across a reload through the refresh cookie, and refuses API keys on the trial', async () => {
    await page.goto(`${base}/keys`);
    await heading(page, 'API คีย์').waitFor();
    await page.getByText('การใช้ API ต้องใช้แพ็กเกจแบบชำระเงิน').first().waitFor();
    const opener = page.getByRole('button', { name: 'สร้างคีย์' }).first();
    await opener.click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('ชื่อคีย์').waitFor();
    // Keyboard: Tab stays inside the modal, Escape closes it and focus returns to the opener.
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => !!document.activeElement?.closest('dialog[open]')), `tab ${i} left the dialog`).toBe(true);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await opener.evaluate((el) => el === document.activeElement)).toBe(true);
    await opener.click();
    await dialog.getByLabel('ชื่อคีย์').fill('เว็บไซต์ร้าน');
    await dialog.getByRole('button', { name: 'สร้างคีย์' }).click();
    await page.getByText('403 PLAN_API_ACCESS_REQUIRED', { exact: false }).last().waitFor();
    await shot('04-keys-trial-refused');
  });

  it('creates a live key once the operator has recorded the payment', async () => {
    const shop = await c.db.selectFrom('shops').select(['id', 'plan_code']).where('name', '=', SHOP_NAME).executeTakeFirstOrThrow();
    expect(shop.plan_code).toBe('TRIAL');
    await c.shops.setPlan(shop.id, 'GROWTH', 'operator:e2e');
    await page.reload();
    await heading(page, 'API คีย์').waitFor();
    await page.getByRole('button', { name: 'สร้างคีย์' }).first().click();
    const dialog = page.getByRole('dialog');
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
    await page.getByText('NO_PAYEE_CONFIGURED', { exact: false }).first().waitFor();
    await shot('06-payees-empty');
    await page.getByRole('button', { name: 'เพิ่มบัญชี' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('ธนาคาร', { exact: true }).selectOption('004');
    await dialog.getByLabel('เลขที่บัญชี').fill(PAYEE_ACCOUNT);
    await dialog.getByLabel('ชื่อบัญชี').fill('บจก. ร้านกาแฟ ทดสอบ');
    await dialog.getByLabel('ตั้งเป็นบัญชีหลัก').check();
    await dialog.getByRole('button', { name: 'บันทึก' }).click();
    await page.locator('.payee', { hasText: '6609' }).waitFor();
    expect(await page.content()).not.toContain(PAYEE_ACCOUNT);
    await shot('07-payees');
  });

  it('checks an uploaded sandbox slip, and the result appears live in Transactions', async () => {
    const reg = await fetch(`${bank.url}/transfers`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        sendingBank: '014', amount: 1250.5,
        sender: { name: 'นาย สมชาย ใจดี', nameEn: 'MR SOMCHAI JAIDEE', account: '9876543210' },
        receiver: { name: 'บจก. ร้านกาแฟ ทดสอบ', account: PAYEE_ACCOUNT, bankCode: '004' },
      }),
    });
    expect(reg.status).toBe(201);
    const { transRef } = (await reg.json()) as { transRef: string };
    const png = Buffer.from(await (await fetch(`${bank.url}/transfers/${transRef}/slip.png`)).arrayBuffer());
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

  it('delivers a signed webhook test event to a local receiver', async () => {
    await page.getByRole('link', { name: 'เว็บฮุก' }).first().click();
    await heading(page, 'เว็บฮุก').waitFor();
    await page.getByRole('button', { name: 'เพิ่มปลายทาง' }).click();
    const dialog = page.getByRole('dialog');
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
    await expect.poll(async () => {
      await page.getByRole('button', { name: 'รีเฟรช' }).first().click();
      return page.locator('[data-testid="deliveries"]').innerText().catch(() => '');
    }, { timeout: 15_000 }).toContain('ส่งสำเร็จ');
    await shot('12-webhooks');
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
    await page.getByRole('link', { name: 'ความปลอดภัย' }).first().click();
    await heading(page, 'ความปลอดภัย').waitFor();
    await page.getByText('อุปกรณ์นี้').first().waitFor();
    await shot('15-security');
    await page.getByRole('button', { name: 'EN' }).click();
    await heading(page, 'Security').waitFor();
    await page.getByRole('link', { name: 'Overview' }).first().click();
    await heading(page, 'Overview').waitFor();
    await shot('16-overview-en');
    await page.getByRole('link', { name: 'Check a slip' }).first().click();
    await page.locator('[data-testid="slip-input"]').setInputFiles(slipFile);
    // The same picture again within 24 h: the earlier record comes back, marked as cached.
    await page.getByRole('heading', { name: 'Genuine: the money reached your account' }).waitFor({ timeout: 30_000 });
    await shot('17-check-en');
  });

  it('explains other results and error states in plain Thai (answers simulated in the browser)', async () => {
    await page.getByRole('button', { name: 'ไทย' }).click();
    await page.getByRole('link', { name: 'ตรวจสลิป' }).first().click();
    await heading(page, 'ตรวจสลิป').waitFor();
    const base0 = {
      id: 'txn_sim', verified: false, transRef: 'SIM0001', amount: 980.25, bankCode: '014', bankName: null, senderName: 'นาง สมหญิง รักดี',
      senderAccount: 'XXX-X-12345-X', receiverName: 'บจก. ร้านกาแฟ ทดสอบ', receiverAccount: 'xxx-xxx660-9', transDate: '2026-11-19T02:00:00.000Z',
      errorMessage: null, createdAt: '2026-11-21T05:00:00.000Z', duplicate: false, cached: false, latencyMs: 900, environment: 'live',
      source: 'DASHBOARD', clientRef: null, stale: false, quota: { used: 2, limit: 2000, remaining: 1998 },
    };
    const cases: { name: string; rec: Record<string, unknown>; title: string }[] = [
      { name: '18-result-stale-success', rec: { status: 'SUCCESS', verified: true, errorCode: null, stale: true }, title: 'สลิปจริง แต่เป็นการโอนเมื่อนานมาแล้ว' },
      { name: '19-result-fraud', rec: { status: 'FRAUD', errorCode: 'SLIP_NOT_FOUND' }, title: 'สลิปปลอมหรือถูกแก้ไข' },
      { name: '20-result-pending', rec: { status: 'PROVIDER_ERROR', errorCode: 'SLIP_PENDING', amount: null }, title: 'ธนาคารยังไม่เปิดข้อมูลรายการนี้' },
      { name: '21-result-receiver-unverified', rec: { status: 'RECEIVER_MISMATCH', errorCode: 'RECEIVER_UNVERIFIED' }, title: 'ยืนยันบัญชีผู้รับไม่ได้' },
    ];
    let answer: { status: number; body: unknown } = { status: 200, body: null };
    await page.route('**/api/dashboard/verify*', (route) => route.fulfill({ status: answer.status, contentType: 'application/json', body: JSON.stringify(answer.body) }));
    for (const c of cases) {
      answer = { status: 200, body: { success: true, data: { ...base0, ...c.rec, id: `txn_${c.name}` } } };
      await page.locator('[data-testid="slip-input"]').setInputFiles(slipFile);
      await page.getByRole('heading', { name: c.title }).waitFor();
      expect(await page.locator('.result-next').innerText()).toContain('ควรทำอะไรต่อ');
      if (c.name === '19-result-fraud') await shot(c.name);
    }
    answer = { status: 402, body: { success: false, statusCode: 402, code: 'QUOTA_EXCEEDED', message: 'Quota exceeded', quota: { used: 50, limit: 50, remaining: 0 } } };
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
});
