/**
 * The LINE mini-app after its session ended, in Debian's Chromium at 390x844 (the stack of
 * miniapp-kit.ts: real service, fake LINE Login, @line/liff-mock). LIFF keeps handing the page the ID
 * token it was given until that expires (up to an hour), and the service accepts a token for one
 * sign-in: once the session that token opened was signed out, every start failed with "close and open
 * again", and opening again got the same spent token back. The page now drops the token (liff.logout)
 * and opens again through LINE for a fresh one, once. Here the test stands in for LINE: it answers the
 * page's re-open address (`?mockRenewal=1` in mock mode) with the mini-app and a fresh token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../src/container.js';
import type { startSandbox } from '../helpers/sandbox.js';
import type { FakeLineLogin } from '../line-login/fake-line-login.js';
import { MINI_TEXT } from '../../../web/src/miniapp/miniapp-dict.js';
import { launchChromium, thaiContext, warnIfNoChromium, HAS_CHROMIUM } from '../helpers/browser.js';
import { closeInOrder } from '../helpers/served-app.js';
import { startMiniAppStack } from './miniapp-kit.js';

warnIfNoChromium('mini-app renewal e2e');

const CHANNEL_ID = '1657000004';

describe.skipIf(!HAS_CHROMIUM)(
  'the mini-app after its session ended gets a fresh LINE token (Chromium, 390x844)',
  { timeout: 120_000 },
  () => {
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
    const sub = `U${'d4'.repeat(16)}`;
    const idToken = () => fake.issue({ sub, aud: CHANNEL_ID, exp: Math.floor(Date.now() / 1000) + 3600, name: 'แคชเชียร์' });
    /** What "LINE" hands the page each time it is opened again; every re-open is counted. */
    let nextToken: () => string;
    let reopened = 0;
    const endMiniSessions = async () => {
      const r = await app.inject({ method: 'POST', url: '/api/dashboard/sessions/revoke-all', headers: ownerAuth });
      expect(r.json().data.revoked).toBeGreaterThan(0);
    };

    beforeAll(async () => {
      ({ bank, fake, c, app, base, dataDir, ownerAuth } = await startMiniAppStack({
        channelId: CHANNEL_ID,
        liffSuffix: 'RenewTest',
        prefix: 'slipcheck-miniapp-renew-',
        shopName: 'ร้านกาแฟต่ออายุ',
      }));
      browser = await launchChromium();
      ctx = await thaiContext(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
      page = await ctx.newPage();
      page.setDefaultTimeout(20_000);
      await page.route(
        (url) => url.searchParams.has('mockRenewal'),
        async (route) => {
          reopened++;
          await route.fulfill({ status: 302, headers: { location: `${base}/miniapp?mockIdToken=${nextToken()}` } });
        },
      );
      // Linked once with a code from the dashboard, as staff do.
      const code = (await app.inject({ method: 'POST', url: '/api/dashboard/line-login/code', headers: ownerAuth })).json().data.code;
      await page.goto(`${base}/miniapp?mockIdToken=${idToken()}`);
      await page.getByTestId('link-code').fill(code);
      await page.getByRole('button', { name: MINI_TEXT.th.link }).click();
      await page.getByTestId('quota-left').waitFor();
    }, 120_000);

    afterAll(() => closeInOrder([ctx, browser, app, c, bank, fake], dataDir), 60_000);

    it('a start with the spent token after the session was signed out opens again through LINE and lands on the home', async () => {
      await endMiniSessions();
      nextToken = idToken;
      await page.reload();
      await page.getByTestId('quota-left').waitFor();
      expect(reopened).toBe(1);
      expect(new URL(page.url()).searchParams.has('mockRenewal')).toBe(false);
      expect(await page.getByText(MINI_TEXT.th.signInFailed).count()).toBe(0);
      expect(await page.content()).toContain('ร้านกาแฟต่ออายุ');
    });

    it('when LINE hands back a token that is refused again, the page says so instead of going round again', async () => {
      await endMiniSessions();
      const spent = new URL(page.url()).searchParams.get('mockIdToken')!;
      nextToken = () => spent; // LINE "renews" nothing: the same spent token again
      const before = reopened;
      await page.reload();
      await page.getByText(MINI_TEXT.th.signInFailed).waitFor();
      expect(reopened - before).toBe(1);
      // And it stays there: no second trip within the window.
      await page.waitForTimeout(1500);
      expect(reopened - before).toBe(1);
      expect(await page.getByTestId('quota-left').count()).toBe(0);
    });
  },
);
