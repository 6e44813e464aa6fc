/**
 * Accessibility of every screen a person reaches, measured by a real engine: axe-core (its axe.min.js from
 * node_modules, injected into the page; nothing is fetched at run time) with the WCAG 2.0/2.1 A and AA rules,
 * in Debian's Chromium. A shop with real data (a payee account, checks of several results through the
 * sandbox bank, a webhook endpoint with deliveries, a staff invite, a LINE link) is audited on each dashboard
 * screen at 360 and 1280 px in Thai and in English, and the LINE mini-app's screens at 360 and 390 px.
 * Signed-out pages, error states, dialogs, a new key's secret, the staff view and the mini-app's screens too.
 * Fails on every 'serious' or 'critical' WCAG violation, on the page-structure rules (STRUCTURE), on a name
 * put where ARIA forbids one, and on an <html lang> that is not the language chosen; all are printed (rule,
 * impact, screen, target, summary) with a count per rule, and what axe could not decide, for the record.
 * Run it after `npm run build -w packages/web`: it audits the built dashboard.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../src/container.js';
import type { startSandbox } from '../helpers/sandbox.js';
import type { FakeLineLogin } from '../line-login/fake-line-login.js';
import { launchChromium, thaiContext, warnIfNoChromium, HAS_CHROMIUM } from '../helpers/browser.js';
import { closeInOrder } from '../helpers/served-app.js';
import { th } from '../../../web/src/i18n/th.js';
import { en } from '../../../web/src/i18n/en.js';
import { MINI_TEXT } from '../../../web/src/miniapp/miniapp-dict.js';
import { MINI_PASSWORD, startMiniAppStack } from './miniapp-kit.js';

warnIfNoChromium('accessibility e2e');

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const CHANNEL_ID = '1657000077';
const WIDTHS = [360, 1280] as const;
const FAILING = new Set(['serious', 'critical']);
/**
 * Best-practice rules (no WCAG criterion of their own) that fail the test too, whatever their impact: the
 * page structure screen-reader users navigate by (one main landmark, all content in landmarks, a level-one
 * heading naming the page; the dashboard moves focus to that heading on every change of page).
 */
const STRUCTURE = new Set(['page-has-heading-one', 'landmark-one-main', 'region']);
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * Targets excluded from one rule, each for a documented reason (selector -> why). Only these nodes are
 * skipped; the rule still runs everywhere else.
 */
const EXCLUDED: Record<string, Record<string, string>> = {}; // none needed so far

interface Found {
  rule: string;
  impact: string;
  where: string;
  target: string;
  summary: string;
}

describe.skipIf(!HAS_CHROMIUM)('accessibility: axe-core WCAG 2.1 A/AA on every screen (Chromium)', { timeout: 300_000 }, () => {
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let fake: FakeLineLogin;
  let c: Container;
  let app: FastifyInstance;
  let base: string;
  let dataDir: string;
  let email: string;
  let shopId: string;
  let ownerAuth: Record<string, string>;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let receiver: http.Server;
  const found: Found[] = [];
  const advice: Found[] = [];
  const undecided = new Map<string, number>();
  const audited: string[] = [];
  const staffEmail = `staff+${Date.now()}@example.com`;

  const slipFile = async (transRef: string, format: 'png' | 'jpg' = 'png') => {
    const f = path.join(dataDir, `slip-${transRef}.${format}`);
    fs.writeFileSync(f, await bank.slip(transRef, 'clean', format));
    return f;
  };

  /**
   * Runs axe on the page as it is now and keeps what it finds under `where`: WCAG A/AA violations in
   * `sink`, best-practice-only ones (landmarks, heading order; no WCAG criterion) in `advice`, and the
   * nodes axe could not decide (`incomplete`, e.g. contrast over a gradient) counted per rule.
   */
  async function audit(p: Page, where: string, expectLang?: 'th' | 'en', sink: Found[] = found) {
    // Whatever is still loading is not what a person reads: wait for the spinners to go.
    await p.waitForFunction(() => !document.querySelector('.loading, .spinner'), undefined, { timeout: 15_000 }).catch(() => undefined);
    if (!(await p.evaluate(() => 'axe' in window))) await p.addScriptTag({ content: AXE_SOURCE });
    const run = (only: 'contrast' | 'rest') =>
      p.evaluate(
        async ({ wcag, only }) => {
          interface AxeResult {
            id: string;
            impact: string | null;
            tags: string[];
            nodes: Array<{ target: string[]; failureSummary?: string; any: Array<{ message: string }> }>;
          }
          type Axe = { run(ctx: unknown, o: unknown): Promise<{ violations: AxeResult[]; incomplete: AxeResult[] }> };
          const axe = (window as unknown as { axe: Axe }).axe;
          const r = await axe.run(document, {
            runOnly: { type: 'tag', values: [...wcag, 'best-practice'] },
            rules: only === 'contrast' ? undefined : { 'color-contrast': { enabled: false } },
            resultTypes: ['violations', 'incomplete'],
          });
          const flat = (list: AxeResult[]) =>
            list
              .filter((v) => (only === 'contrast') === (v.id === 'color-contrast'))
              .map((v) => ({
                id: v.id,
                impact: v.impact ?? 'none',
                wcag: v.tags.some((t) => wcag.includes(t)),
                nodes: v.nodes.map((n) => ({
                  target: n.target.join(' '),
                  summary: (n.failureSummary ?? '').replace(/\s+/g, ' ').trim(),
                  why: n.any[0]?.message ?? '',
                })),
              }));
          return { violations: flat(r.violations), incomplete: flat(r.incomplete) };
        },
        { wcag: WCAG_TAGS, only },
      );
    const rest = await run('rest');
    // Colour contrast in a second pass, on a page axe can measure (both changes are undone after it):
    // - line-height: normal. The Thai fonts Debian has (Garuda, Loma) draw a line box taller than the
    //   dashboard's line-height 1.6, so each line of text overlaps its neighbour and axe leaves every node
    //   undecided ("partially obscured"); contrast does not depend on the line height.
    // - each background gradient (the desktop shell's sidebar column, the result cards' tinted tops) is
    //   drawn as its darkest stop: axe cannot measure over a gradient, and all text over these is dark,
    //   so the darkest stop is the worst case it is ever read on.
    await p.evaluate(() => {
      const style = document.createElement('style');
      style.id = 'a11y-lh';
      style.textContent = '* { line-height: normal !important; }';
      document.head.appendChild(style);
      const lum = (rgb: number[]) =>
        rgb
          .map((c) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4))
          .reduce((a, c, i) => a + c * [0.2126, 0.7152, 0.0722][i], 0);
      for (const el of Array.from(document.querySelectorAll<HTMLElement>('*'))) {
        const image = getComputedStyle(el).backgroundImage;
        if (!image.includes('gradient(')) continue;
        const stops = [...image.matchAll(/rgba?\((\d+), (\d+), (\d+)/g)].map((m) => [Number(m[1]), Number(m[2]), Number(m[3])]);
        const darkest = stops.sort((a, b) => lum(a) - lum(b))[0];
        if (!darkest) continue;
        el.dataset.a11yGradient = el.style.cssText;
        el.style.setProperty('background-image', 'none', 'important');
        el.style.setProperty('background-color', `rgb(${darkest.join(',')})`, 'important');
      }
    });
    const contrast = await run('contrast');
    await p.evaluate(() => {
      document.getElementById('a11y-lh')?.remove();
      for (const el of Array.from(document.querySelectorAll<HTMLElement>('[data-a11y-gradient]'))) {
        el.style.cssText = el.dataset.a11yGradient ?? '';
        delete el.dataset.a11yGradient;
      }
    });
    const result = { violations: [...rest.violations, ...contrast.violations], incomplete: [...rest.incomplete, ...contrast.incomplete] };
    const lang = await p.evaluate(() => document.documentElement.lang);
    const at = `${where} [lang=${lang}]`;
    audited.push(at);
    // Screen readers pick their voice from <html lang>: it must follow the language the person chose.
    if (expectLang && lang !== expectLang)
      sink.push({
        rule: 'html-lang-follows-choice',
        impact: 'serious',
        where: at,
        target: 'html',
        summary: `lang="${lang}", chosen ${expectLang}`,
      });
    for (const v of result.violations)
      for (const n of v.nodes) {
        if (EXCLUDED[v.id]?.[n.target]) continue;
        (v.wcag ? sink : advice).push({ rule: v.id, impact: v.impact, where: at, target: n.target, summary: n.summary.slice(0, 300) });
      }
    for (const v of result.incomplete) {
      // A name on an element whose role forbids one (a plain span or p) is ignored by screen readers
      // whatever text the element holds; axe only leaves it for review because the text may suffice.
      if (v.id === 'aria-prohibited-attr')
        for (const n of v.nodes)
          sink.push({
            rule: v.id,
            impact: 'serious',
            where: at,
            target: n.target,
            summary: n.summary || n.why || 'a name (aria-label) on an element whose role forbids one',
          });
    }
    for (const v of result.incomplete)
      if (v.wcag && v.id !== 'aria-prohibited-attr')
        for (const n of v.nodes) {
          const key = `${v.id}: ${n.why} (${n.target})`;
          undecided.set(key, (undecided.get(key) ?? 0) + 1);
        }
  }

  async function atWidth(p: Page, width: number) {
    await p.setViewportSize({ width, height: width < 600 ? 780 : 860 });
    await p.waitForFunction((w) => window.innerWidth === w, width);
    await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
  }

  /** In-app navigation (a reload per screen would spend a refresh rotation), then the screen's heading. */
  async function go(route: string) {
    await page.evaluate((r) => {
      history.pushState({}, '', r);
      dispatchEvent(new PopStateEvent('popstate'));
    }, route);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
  }

  async function auditBothWidths(p: Page, where: string, lang: 'th' | 'en') {
    for (const width of WIDTHS) {
      await atWidth(p, width);
      await audit(p, `${where}@${width}`, lang);
    }
  }

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end('ok'));
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/slipcheck`;
    ({ bank, fake, c, app, base, dataDir, email, shopId, ownerAuth } = await startMiniAppStack({
      channelId: CHANNEL_ID,
      liffSuffix: 'A11yTest',
      prefix: 'slipcheck-a11y-',
      shopName: 'ร้านกาแฟเข้าถึงได้',
      env: { WEBHOOK_ALLOW_PRIVATE: 'true' },
    }));
    await c.shops.setPlan(shopId, 'STARTER', 'test');
    const apiKey = (await c.apiKeys.create(shopId, { environment: 'live', scopes: 'verify,read' }, 'test')).key;
    await c.webhooks.addEndpoint(shopId, { url: hookUrl, description: 'POS' });

    // Checks of several results through the public API: genuine, a duplicate, an amount mismatch, another account.
    const verify = async (transRef: string, format: 'png' | 'jpg', q: Record<string, string>) => {
      const res = await fetch(`${base}/api/v1/verify?${new URLSearchParams(q)}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/octet-stream' },
        body: await bank.slip(transRef, 'clean', format),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { data: { status: string } }).data.status;
    };
    const a = await bank.register({ amount: 1250.5 });
    const statuses = [
      await verify(a.transRef, 'png', { clientRef: 'ORD-1' }),
      await verify(a.transRef, 'jpg', { clientRef: 'ORD-2' }),
      await verify((await bank.register({ amount: 500 })).transRef, 'png', { clientRef: 'ORD-3', amount: '600.00' }),
      await verify(
        (await bank.register({ amount: 80, receiver: { name: 'ร้านอื่น', account: '9990001112', bankCode: '014' } })).transRef,
        'png',
        { clientRef: 'ORD-4' },
      ),
    ];
    expect(statuses.slice(0, 3)).toEqual(['SUCCESS', 'DUPLICATE', 'AMOUNT_MISMATCH']);
    expect(statuses[3]).not.toBe('SUCCESS');

    const invite = await app.inject({
      method: 'POST',
      url: '/api/dashboard/team/invites',
      headers: ownerAuth,
      payload: { email: staffEmail },
    });
    expect(invite.statusCode).toBe(201);

    browser = await launchChromium();
    // axe is put into the page as an inline script, which the dashboard's CSP (rightly) refuses.
    ctx = await thaiContext(browser, { viewport: { width: 1280, height: 860 }, bypassCSP: true });
    page = await ctx.newPage();
    page.setDefaultTimeout(20_000);
  }, 180_000);

  afterAll(async () => {
    await closeInOrder([ctx, browser, app, c, bank, fake], dataDir);
    await new Promise((r) => receiver?.close(r));
  }, 60_000);

  it('the engine is really running: a nameless icon button and grey-on-white text put into the login page are caught', async () => {
    await page.goto(`${base}/login`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await page.evaluate(() => {
      const probe = document.createElement('div');
      probe.id = 'a11y-probe';
      probe.innerHTML =
        '<button type="button"><svg viewBox="0 0 8 8" width="24" height="24"></svg></button><p style="color:#bbb;background:#fff">ข้อความสีจางบนพื้นขาว pale text</p>';
      document.querySelector('main')!.appendChild(probe);
    });
    const caught: Found[] = [];
    await audit(page, 'probe', undefined, caught);
    audited.pop();
    const rules = caught.filter((f) => f.target.includes('#a11y-probe')).map((f) => `${f.rule}:${f.impact}`);
    expect(rules).toEqual(expect.arrayContaining(['button-name:critical', 'color-contrast:serious']));
  });

  it('the signed-out screens: login, signup, forgot password (Thai and English)', async () => {
    for (const lang of ['th', 'en'] as const) {
      const words = lang === 'th' ? th : en;
      await page.goto(`${base}/login`);
      await page.getByRole('heading', { level: 1, name: th['auth.loginTitle'] }).waitFor();
      if (lang === 'en') {
        await page.getByRole('button', { name: 'EN', exact: true }).click();
        await page.getByRole('heading', { level: 1, name: en['auth.loginTitle'] }).waitFor();
      }
      await auditBothWidths(page, `login ${lang}`, lang);
      // A wrong password: the error said beside the form.
      await page.getByLabel(words['auth.email']).fill(email);
      await page.getByLabel(words['auth.password']).fill('not the password at all');
      await page.getByRole('button', { name: words['auth.login'], exact: true }).click();
      await page.locator('main .alert-error, main [role="alert"]').first().waitFor();
      await auditBothWidths(page, `login wrong password ${lang}`, lang);
      await page.getByRole('link', { name: words['auth.noAccount'] }).first().click();
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await auditBothWidths(page, `signup ${lang}`, lang);
      await page.goto(`${base}/forgot-password`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      if (lang === 'en') await page.getByRole('button', { name: 'EN', exact: true }).click();
      await auditBothWidths(page, `forgot-password ${lang}`, lang);
      await page.goto(`${base}/reset-password?token=not-a-real-token`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await auditBothWidths(page, `reset-password ${lang}`, lang);
    }
  });

  it('every signed-in dashboard screen with data, at 360 and 1280 px, in Thai and in English', async () => {
    await page.goto(`${base}/login`);
    await page.getByRole('button', { name: 'ไทย', exact: true }).click();
    await page.getByLabel(th['auth.email']).fill(email);
    await page.getByLabel(th['auth.password']).fill(MINI_PASSWORD);
    await page.getByRole('button', { name: th['auth.login'], exact: true }).click();
    await page.getByRole('heading', { level: 1, name: th['overview.title'] }).waitFor();
    const txId = (await c.db.selectFrom('transactions').select('id').where('status', '=', 'AMOUNT_MISMATCH').executeTakeFirstOrThrow()).id;

    for (const lang of ['th', 'en'] as const) {
      const words = lang === 'th' ? th : en;
      await page.getByRole('button', { name: lang === 'th' ? 'ไทย' : 'EN', exact: true }).click();
      await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(lang);
      for (const route of [
        '/',
        '/transactions',
        `/transactions/${txId}`,
        '/payees',
        '/keys',
        '/webhooks',
        '/team',
        '/line',
        '/security',
        '/settings',
        '/no-such-page',
      ]) {
        await go(route);
        if (route === '/transactions') await page.locator('main .tx-list').waitFor();
        if (route === '/webhooks') await page.locator('[data-testid="deliveries"]').waitFor();
        await auditBothWidths(page, `${route === `/transactions/${txId}` ? '/transactions/:id' : route} ${lang}`, lang);
      }
      // The phone's folded filters and downloads (the money tools), opened.
      await go('/transactions');
      await atWidth(page, 360);
      await page.locator('.tx-tools-toggle').click();
      await page.locator('form.filters').waitFor();
      await audit(page, `/transactions filters open ${lang}@360`, lang);
      // The phone menu, opened.
      await page.locator('.menu-btn').click();
      await page.locator('#sidenav .nav-link').first().waitFor();
      await audit(page, `menu open ${lang}@360`, lang);
      await page.keyboard.press('Escape');
      // Check a slip: the empty screen, then the result card of a fresh check and of a duplicate.
      await go('/check');
      await auditBothWidths(page, `/check ${lang}`, lang);
      const { transRef } = await bank.register({ amount: lang === 'th' ? 420.5 : 99 });
      await page.getByTestId('slip-input').setInputFiles(await slipFile(transRef));
      await page.locator('article.result').first().waitFor({ timeout: 30_000 });
      await auditBothWidths(page, `/check result genuine ${lang}`, lang);
      await page.getByTestId('slip-input').setInputFiles(await slipFile(transRef, 'jpg'));
      await expect.poll(() => page.locator('article.result').last().getAttribute('data-variant'), { timeout: 30_000 }).toBe('duplicate');
      await auditBothWidths(page, `/check result duplicate ${lang}`, lang);
      // The dialogs, each with a field the service refused (its error beside the field).
      const dialog = page.getByRole('dialog');
      const closeDialog = async () => {
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'hidden' });
      };
      await go('/payees');
      await page.getByRole('button', { name: words['payees.add'] }).first().click();
      await dialog.getByLabel(words['payees.accountNumber']).fill('12ab-34');
      await dialog.getByLabel(words['payees.holder']).fill('บจก. ร้านกาแฟ ทดสอบ');
      await dialog.getByRole('button', { name: words['common.save'] }).click();
      await dialog.locator('.field-error').first().waitFor();
      await auditBothWidths(page, `/payees add dialog, refused ${lang}`, lang);
      await closeDialog();
      await go('/keys');
      await page.getByRole('button', { name: words['keys.create'] }).first().click();
      await dialog.waitFor();
      await auditBothWidths(page, `/keys create dialog ${lang}`, lang);
      // The new key, shown once.
      await dialog.getByLabel(words['keys.name']).fill(`POS ${lang}`);
      await dialog.getByRole('button', { name: words['keys.create'] }).click();
      await page.locator('.secret').waitFor();
      await auditBothWidths(page, `/keys new key shown ${lang}`, lang);
      await go('/webhooks');
      await page.getByRole('button', { name: words['webhooks.add'] }).first().click();
      await dialog.getByLabel(words['webhooks.url']).fill('https://user:secret@example.com/hook');
      await dialog.getByRole('button', { name: words['common.save'] }).click();
      await dialog.getByText(words['error.INVALID_WEBHOOK_URL.HAS_CREDENTIALS']).waitFor();
      await auditBothWidths(page, `/webhooks add dialog, refused ${lang}`, lang);
      await closeDialog();
    }
  });

  it('a staff member: the invitation page, then the dashboard as staff (Thai and English)', async () => {
    const mail = (await c.mail.list({ to: staffEmail }))[0];
    const token = /token=([^\s&]+)/.exec(mail.text ?? '')![1];
    const staff = await thaiContext(browser, { viewport: { width: 1280, height: 860 }, bypassCSP: true });
    try {
      const p = await staff.newPage();
      p.setDefaultTimeout(20_000);
      await p.goto(`${base}/accept-invite?token=${token}`);
      await p.getByRole('heading', { level: 1, name: th['accept.title'] }).waitFor();
      await auditBothWidths(p, 'accept-invite th', 'th');
      await p.getByRole('button', { name: 'EN', exact: true }).click();
      await p.getByRole('heading', { level: 1, name: en['accept.title'] }).waitFor();
      await auditBothWidths(p, 'accept-invite en', 'en');
      const pw = p.locator('input[type="password"]');
      await pw.nth(0).fill('staff password 1234');
      await pw.nth(1).fill('staff password 1234');
      await p.getByRole('button', { name: en['accept.submit'] }).click();
      await p.getByRole('heading', { level: 1 }).first().waitFor();
      await p.locator('main .tx-list').first().waitFor();
      for (const lang of ['th', 'en'] as const) {
        await p.getByRole('button', { name: lang === 'th' ? 'ไทย' : 'EN', exact: true }).click();
        await expect.poll(() => p.evaluate(() => document.documentElement.lang)).toBe(lang);
        await auditBothWidths(p, `staff overview ${lang}`, lang);
        await p.evaluate(() => {
          history.pushState({}, '', '/keys');
          dispatchEvent(new PopStateEvent('popstate'));
        });
        await p.locator('main .empty').waitFor();
        await auditBothWidths(p, `staff on an owner-only page ${lang}`, lang);
        await p.evaluate(() => {
          history.pushState({}, '', '/');
          dispatchEvent(new PopStateEvent('popstate'));
        });
      }
    } finally {
      await staff.close();
    }
  });

  it("the LINE mini-app's screens: not linked, check with a result card, today (Thai and English)", async () => {
    const code = (await app.inject({ method: 'POST', url: '/api/dashboard/line-login/code', headers: ownerAuth })).json().data
      .code as string;
    const sub = `U${'c3'.repeat(16)}`;
    const idToken = () => fake.issue({ sub, aud: CHANNEL_ID, exp: Math.floor(Date.now() / 1000) + 3600, name: 'แคชเชียร์' });
    const mini = await thaiContext(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, bypassCSP: true });
    try {
      const p = await mini.newPage();
      p.setDefaultTimeout(20_000);
      await p.goto(`${base}/miniapp?mockIdToken=${idToken()}`);
      await p.getByText(MINI_TEXT.th.notLinkedTitle).waitFor();
      for (const width of [360, 390]) {
        await atWidth(p, width);
        await audit(p, `miniapp not linked th@${width}`, 'th');
      }
      await p.getByRole('button', { name: 'EN', exact: true }).click();
      await p.getByText(MINI_TEXT.en.notLinkedTitle).waitFor();
      for (const width of [360, 390]) {
        await atWidth(p, width);
        await audit(p, `miniapp not linked en@${width}`, 'en');
      }
      await p.getByRole('button', { name: 'ไทย', exact: true }).click();
      await p.getByTestId('link-code').fill(code);
      await p.getByRole('button', { name: MINI_TEXT.th.link }).click();
      await p.getByTestId('quota-left').waitFor();
      for (const lang of ['th', 'en'] as const) {
        const words = MINI_TEXT[lang];
        if (lang === 'en') await p.getByRole('button', { name: 'EN', exact: true }).click();
        await p.getByRole('tab', { name: words.tabCheck, exact: true }).click();
        for (const width of [360, 390]) {
          await atWidth(p, width);
          await audit(p, `miniapp home (check tab) ${lang}@${width}`, lang);
        }
        const { transRef } = await bank.register({ amount: lang === 'th' ? 310 : 45.25 });
        await p.getByTestId('slip-input').setInputFiles(await slipFile(transRef));
        await p.locator('article.result').last().waitFor({ timeout: 30_000 });
        for (const width of [360, 390]) {
          await atWidth(p, width);
          await audit(p, `miniapp check result ${lang}@${width}`, lang);
        }
        await p.getByRole('tab', { name: words.tabToday, exact: true }).click();
        await p.getByRole('tabpanel', { name: words.tabToday, exact: true }).waitFor();
        for (const width of [360, 390]) {
          await atWidth(p, width);
          await audit(p, `miniapp today ${lang}@${width}`, lang);
        }
      }
    } finally {
      await mini.close();
    }
  });

  it("no 'serious' or 'critical' violation and no page-structure violation anywhere", () => {
    const perRule = (list: Found[]) => {
      const counts = new Map<string, number>();
      for (const f of list) counts.set(`${f.rule} (${f.impact})`, (counts.get(`${f.rule} (${f.impact})`) ?? 0) + 1);
      return [...counts].map(([k, n]) => `  ${String(n).padStart(4)}  ${k}`).join('\n') || '  none';
    };
    console.log(
      `[a11y] ${audited.length} audits; WCAG A/AA violating nodes: ${found.length}\n${perRule(found)}\n` +
        `[a11y] best practice only (failing only for ${[...STRUCTURE].join(', ')}): ${advice.length}\n${perRule(advice)}\n` +
        `[a11y] undecided by axe (incomplete, WCAG rules):\n${[...undecided].map(([k, n]) => `  ${String(n).padStart(4)}  ${k}`).join('\n') || '  none'}`,
    );
    const show = (list: Found[]) =>
      list.map((f) => `- ${f.rule} [${f.impact}] on ${f.where}\n    target: ${f.target}\n    ${f.summary}`).join('\n');
    if (advice.length) console.log(`[a11y] best practice:\n${show(advice)}`);
    const failing = [...found.filter((f) => FAILING.has(f.impact)), ...advice.filter((f) => STRUCTURE.has(f.rule))];
    if (found.length) console.log(`[a11y] WCAG violations:\n${show(found)}`);
    console.log(`[a11y] failing (WCAG serious/critical, page structure): ${failing.length}`);
    expect(audited.length, 'screens audited').toBeGreaterThanOrEqual(124);
    expect(
      failing.map((f) => `${f.rule} [${f.impact}] ${f.where} ${f.target}`),
      `${failing.length} serious/critical or page-structure accessibility violations (listed above)`,
    ).toEqual([]);
  });
});
