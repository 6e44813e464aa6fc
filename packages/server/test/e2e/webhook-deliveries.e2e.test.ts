/**
 * The dashboard's webhook deliveries, failed in each way a receiver fails, in Debian's Chromium at 360
 * and 390 px, Thai and English: the real service on loopback (SQLite, inline worker), real test events
 * sent to a refused port, an unknown host, a plain-http port spoken to in TLS, a receiver that never
 * answers, one that closes the socket, and ones answering 500 and 413. The screen said what the sender
 * recorded (`ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9`, `timeout after 500 ms`, `HTTP 500`), to
 * owners too, Thai page included; it must say what happened in the page's language and keep the
 * recorded text for the integrator behind a "technical detail" disclosure.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../src/container.js';
import { th } from '../../../web/src/i18n/th.js';
import { translate } from '../../../web/src/i18n/translate.js';
import { launchChromium, thaiContext, warnIfNoChromium, HAS_CHROMIUM } from '../helpers/browser.js';
import { closeInOrder, ensureWebBuilt, startServedApp } from '../helpers/served-app.js';
import { startSandbox } from '../helpers/sandbox.js';

warnIfNoChromium('webhook deliveries e2e');

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = path.resolve(HERE, '../../test-output/screenshots');
const PASSWORD = 'correct horse battery staple';

describe.skipIf(!HAS_CHROMIUM)('webhook delivery errors in plain words (Chromium, 360 and 390 px)', { timeout: 120_000 }, () => {
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let c: Container;
  let app: FastifyInstance;
  let base: string;
  let dataDir: string;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let receiver: http.Server;
  const email = `owner+wh${Date.now()}@example.com`;

  /** The raw text each delivery recorded, and the sentence (key, and its {code} or {seconds}) the page must say for it. */
  const expected: Array<{ raw: RegExp; key: keyof typeof th; vars?: Record<string, string> }> = [];

  beforeAll(async () => {
    ensureWebBuilt();
    fs.mkdirSync(SHOTS, { recursive: true });
    bank = await startSandbox();
    const sockets = new Set<import('node:net').Socket>();
    receiver = http.createServer((req, res) => {
      if (req.url === '/slow') return; // never answers: the sender's timeout ends it
      if (req.url === '/close') return req.socket.destroy();
      res.writeHead(req.url === '/413' ? 413 : 500).end();
    });
    receiver.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    receiver.on('close', () => sockets.forEach((s) => s.destroy()));
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = (receiver.address() as AddressInfo).port;

    ({ c, app, base, dataDir } = await startServedApp(
      bank.url,
      { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '500' },
      { prefix: 'slipcheck-wh-errors-' },
    ));
    const signup = await app.inject({
      method: 'POST',
      url: '/api/dashboard/auth/signup',
      payload: { email, password: PASSWORD, shopName: 'ร้านเว็บฮุกพัง', planCode: 'GROWTH' },
    });
    expect(signup.statusCode).toBe(201);
    const shopId: string = signup.json().data.shop.id;
    await c.shops.setPlan(shopId, 'GROWTH', 'test');

    // One endpoint, moved to each failing target in turn, one real test event each (sent at once).
    const targets: Array<[string, RegExp, keyof typeof th, Record<string, string>?]> = [
      ['http://127.0.0.1:9/hook', /^ECONNREFUSED: .*127\.0\.0\.1:9/, 'webhooks.err.connectionRefused'],
      ['http://no-such-host.invalid/hook', /^(ENOTFOUND|EAI_AGAIN)/, 'webhooks.err.dnsNotFound'],
      [`https://127.0.0.1:${port}/hook`, /^ERR_SSL_/, 'webhooks.err.tls'],
      [`http://127.0.0.1:${port}/slow`, /^timeout after 500 ms$/, 'webhooks.err.timeout', { seconds: '0.5' }],
      [`http://127.0.0.1:${port}/close`, /other side closed/, 'webhooks.err.connectionClosed'],
      [`http://127.0.0.1:${port}/500`, /^HTTP 500$/, 'webhooks.err.http5xx', { code: '500' }],
      [`http://127.0.0.1:${port}/413`, /^HTTP 413$/, 'webhooks.err.tooLarge'],
    ];
    const { endpoint: ep } = await c.webhooks.addEndpoint(shopId, { url: targets[0][0] }, 'test');
    for (const [url, raw, key, vars] of targets) {
      await c.webhooks.update(shopId, ep.id, { url }, 'test');
      const d = await c.webhooks.sendTest(shopId, ep.id, 'test');
      expect(d.lastError, url).toMatch(raw);
      expected.push({ raw, key, vars });
    }

    browser = await launchChromium();
    ctx = await thaiContext(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    page = await ctx.newPage();
    page.setDefaultTimeout(20_000);
  }, 120_000);

  afterAll(async () => {
    await closeInOrder([ctx, browser, app, c, bank], dataDir);
    await new Promise((r) => receiver?.close(r));
  }, 60_000);

  it('each failed delivery says what went wrong in Thai and English; the recorded error stays behind a disclosure', async () => {
    await page.goto(`${base}/login`);
    await page.getByLabel('อีเมล').fill(email);
    await page.getByLabel('รหัสผ่าน').fill(PASSWORD);
    await page.getByRole('button', { name: 'เข้าสู่ระบบ', exact: true }).click();
    await expect.poll(() => page.url()).not.toContain('/login');
    await page.goto(`${base}/webhooks`);
    const list = page.getByTestId('deliveries');
    await list.waitFor();

    for (const width of [360, 390]) {
      await page.setViewportSize({ width, height: 844 });
      for (const lang of ['th', 'en'] as const) {
        await page.getByRole('button', { name: lang === 'th' ? 'ไทย' : 'EN', exact: true }).click();
        await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(lang);
        const items = list.locator('li.delivery');
        await expect.poll(() => items.count()).toBe(expected.length);
        // Newest first: the list is the targets in reverse.
        for (const [i, want] of [...expected].reverse().entries()) {
          const item = items.nth(i);
          const where = `${String(want.key)} @${width} ${lang}`;
          const seen = await item.innerText();
          const rawLine = new RegExp(want.raw.source, 'm');
          // The recorded text is not what a person reads first...
          expect(seen, where).not.toMatch(rawLine);
          expect(seen, where).not.toMatch(/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ERR_SSL|timeout after|other side closed|UND_ERR/);
          // ...the sentence in the page's language is.
          const sentence = translate(lang, want.key, want.vars);
          expect(seen, where).toContain(sentence);
          if (lang === 'th') expect(sentence, where).toMatch(/[\u0E00-\u0E7F]/);
          // The integrator still finds the exact recorded error one tap away.
          const detail = item.locator('details');
          await detail.locator('summary').click();
          expect(await detail.innerText(), where).toMatch(rawLine);
          await detail.locator('summary').click();
        }
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `@${width} ${lang}: horizontal overflow`).toBeLessThanOrEqual(0);
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: path.join(SHOTS, `webhook-delivery-errors-${lang}-${width}.png`), fullPage: true });
      }
    }
  });

  // With every event unticked the add dialog's Save button was greyed out and nothing said why.
  it('the add dialog says why Save waits when no event is ticked, in Thai and English', async () => {
    await page.setViewportSize({ width: 360, height: 844 });
    for (const lang of ['th', 'en'] as const) {
      await page.goto(`${base}/webhooks`);
      await page.getByRole('button', { name: lang === 'th' ? 'ไทย' : 'EN', exact: true }).click();
      await page.getByRole('button', { name: translate(lang, 'webhooks.add'), exact: true }).click();
      const dialog = page.getByRole('dialog');
      for (const box of await dialog.getByRole('checkbox').all()) await box.uncheck();
      const save = dialog.getByRole('button', { name: translate(lang, 'common.save'), exact: true });
      expect(await save.isDisabled()).toBe(true);
      const why = dialog.locator('#webhook-events-why');
      await expect.poll(() => why.isVisible()).toBe(true);
      expect(await why.innerText()).toBe(translate(lang, 'webhooks.pickEvent'));
      expect(await save.getAttribute('aria-describedby')).toBe('webhook-events-why');
      await dialog.getByRole('checkbox').first().check();
      expect(await why.count()).toBe(0);
      expect(await save.isDisabled()).toBe(false);
      await page.keyboard.press('Escape');
    }
  });
});
