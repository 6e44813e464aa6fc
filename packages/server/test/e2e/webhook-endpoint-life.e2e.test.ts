/**
 * An endpoint's life on the dashboard's webhooks page, in Debian's Chromium at 360 px, Thai and
 * English, against the real service on loopback (SQLite, inline worker) and a real receiver:
 * - a delivery waiting for its retry shows its state, its attempt of six and the next attempt's time,
 *   and no Redeliver button (the server answers 409 while it is scheduled);
 * - a delivery cancelled because the owner turned the endpoint off says so in the page's language
 *   (it said "not delivered, see the technical detail", and the detail was the English "endpoint disabled");
 * - after "Rotate secret" the card says until when the previous secret still signs (the overlap the
 *   SDK README tells receivers to use); nothing on the page said the old secret kept working.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../src/container.js';
import { translate } from '../../../web/src/i18n/translate.js';
import { launchChromium, thaiContext, warnIfNoChromium, HAS_CHROMIUM } from '../helpers/browser.js';
import { closeInOrder, ensureWebBuilt, startServedApp } from '../helpers/served-app.js';
import { startSandbox } from '../helpers/sandbox.js';
import { insertResult } from '../webhooks/helpers/results.js';
import { until } from '../webhooks/helpers/receiver.js';

warnIfNoChromium('webhook endpoint life e2e');

const PASSWORD = 'correct horse battery staple';

/** The page's date and time (web/src/lib/format.ts formatDateTime: Bangkok time, th-TH or en-GB). */
const formatDateTime = (iso: string, lang: 'th' | 'en') =>
  new Intl.DateTimeFormat(lang === 'th' ? 'th-TH' : 'en-GB', { timeZone: 'Asia/Bangkok', dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(iso),
  );

describe.skipIf(!HAS_CHROMIUM)('webhook endpoint life on the dashboard (Chromium, 360 px)', { timeout: 120_000 }, () => {
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let c: Container;
  let app: FastifyInstance;
  let base: string;
  let dataDir: string;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let receiver: http.Server;
  let shopId: string;
  const email = `owner+whlife${Date.now()}@example.com`;

  beforeAll(async () => {
    ensureWebBuilt();
    bank = await startSandbox();
    receiver = http.createServer((req, res) => {
      req.resume();
      res.writeHead(503).end();
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    ({ c, app, base, dataDir } = await startServedApp(
      bank.url,
      // Retries an hour apart: the retrying delivery stays retrying while the page is read.
      { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_RETRY_SCHEDULE: '3600,3600,3600,3600,3600' },
      { prefix: 'slipcheck-wh-life-' },
    ));
    const signup = await app.inject({
      method: 'POST',
      url: '/api/dashboard/auth/signup',
      payload: { email, password: PASSWORD, shopName: 'ร้านเว็บฮุก', planCode: 'GROWTH' },
    });
    expect(signup.statusCode).toBe(201);
    shopId = signup.json().data.shop.id;
    await c.shops.setPlan(shopId, 'GROWTH', 'test');
    browser = await launchChromium();
    ctx = await thaiContext(browser, { viewport: { width: 360, height: 800 }, isMobile: true, hasTouch: true });
    page = await ctx.newPage();
    page.setDefaultTimeout(20_000);
  }, 120_000);

  afterAll(async () => {
    await closeInOrder([ctx, browser, app, c, bank], dataDir);
    await new Promise((r) => receiver?.close(r));
  }, 60_000);

  const setLang = async (lang: 'th' | 'en') => {
    await page.getByRole('button', { name: lang === 'th' ? 'ไทย' : 'EN', exact: true }).click();
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(lang);
  };

  it('retrying and cancelled deliveries, and the rotated secret, read right in Thai and English', async () => {
    const port = (receiver.address() as AddressInfo).port;
    const { endpoint } = await c.webhooks.addEndpoint(shopId, { url: `http://127.0.0.1:${port}/hook` }, 'test');
    const deliveries = () => c.webhooks.listDeliveries(shopId, { endpointId: endpoint.id });
    // One event fails and waits for its retry; the owner turns the endpoint off while another waits:
    // that one is cancelled at its next round (run now, as if the hour had passed).
    await insertResult(h(), shopId, { amount: 8.2 });
    const retrying = await until(async () => (await deliveries()).items.find((d) => d.status === 'retrying'), 15_000, 'retrying');
    await insertResult(h(), shopId, { amount: 9 });
    const second = await until(
      async () => (await deliveries()).items.find((d) => d.status === 'retrying' && d.id !== retrying.id),
      15_000,
      'second retrying',
    );
    await c.webhooks.disable(shopId, endpoint.id, 'test');
    await c.db
      .updateTable('outbox')
      .set({ run_at: new Date(Date.now() - 1000).toISOString() })
      .where('kind', '=', 'webhook.deliver')
      .where('payload', 'like', `%${second.id}%`)
      .where('status', '=', 'pending')
      .execute();
    await until(async () => (await deliveries()).items.find((d) => d.id === second.id && d.status === 'cancelled'), 15_000, 'cancelled');
    await c.webhooks.enable(shopId, endpoint.id, 'test');
    const nextAt = (await deliveries()).items.find((d) => d.id === retrying.id)!.nextAttemptAt!;

    await page.goto(`${base}/login`);
    await page.getByLabel('อีเมล').fill(email);
    await page.getByLabel('รหัสผ่าน').fill(PASSWORD);
    await page.getByRole('button', { name: 'เข้าสู่ระบบ', exact: true }).click();
    await expect.poll(() => page.url()).not.toContain('/login');
    await page.goto(`${base}/webhooks`);
    const list = page.getByTestId('deliveries');
    await list.waitFor();

    for (const lang of ['th', 'en'] as const) {
      await setLang(lang);
      const items = list.locator('li.delivery');
      await expect.poll(() => items.count()).toBe(2);
      // Newest first: the cancelled one, then the one waiting for its retry.
      const cancelled = await items.nth(0).innerText();
      expect(cancelled).toContain(translate(lang, 'webhooks.dstatus.cancelled'));
      expect(cancelled).toContain(translate(lang, 'webhooks.err.cancelledDisabled'));
      expect(cancelled).not.toContain(translate(lang, 'webhooks.err.unknown'));
      if (lang === 'th') expect(translate(lang, 'webhooks.err.cancelledDisabled')).toMatch(/[\u0E00-\u0E7F]/);
      // A finished delivery can be sent again by hand.
      expect(
        await items
          .nth(0)
          .getByRole('button', { name: translate(lang, 'webhooks.redeliver') })
          .count(),
      ).toBe(1);

      const waiting = await items.nth(1).innerText();
      expect(waiting).toContain(translate(lang, 'webhooks.dstatus.retrying'));
      expect(waiting).toContain(translate(lang, 'webhooks.attemptOf', { n: 1, max: 6 }));
      expect(waiting).toContain('HTTP 503');
      expect(waiting).toContain(translate(lang, 'webhooks.nextAt', { time: formatDateTime(nextAt, lang) }));
      // Still scheduled: no Redeliver (the server would answer 409 DELIVERY_IN_PROGRESS).
      expect(
        await items
          .nth(1)
          .getByRole('button', { name: translate(lang, 'webhooks.redeliver') })
          .count(),
      ).toBe(0);
    }

    // Rotate: the new secret is shown once, and the card says until when the old one still signs.
    await setLang('th');
    await page.getByRole('button', { name: translate('th', 'webhooks.rotate'), exact: true }).click();
    const overlap = page.getByTestId('previous-secret');
    await overlap.waitFor();
    const view = await c.webhooks.get(shopId, endpoint.id);
    expect(view.previousSecretExpiresAt).not.toBeNull();
    for (const lang of ['th', 'en'] as const) {
      await setLang(lang);
      expect(await overlap.innerText()).toBe(
        translate(lang, 'webhooks.previousSecretUntil', { time: formatDateTime(view.previousSecretExpiresAt!, lang) }),
      );
    }
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });

  /** insertResult takes a harness; the served app's container is all it reads. */
  const h = () => ({ c }) as unknown as Parameters<typeof insertResult>[0];
});
