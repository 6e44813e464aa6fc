/**
 * LINE through the chat simulator, end to end in Debian's Chromium at 390x844: the real service on
 * loopback (SQLite, inline worker), the sandbox bank as checker and the sandbox LINE platform as LINE
 * (the service reaches it only through its LINE settings). The demo command links the shop's official
 * account to the platform, as `npx slipcheck demo` does. Screenshots in Thai and English go to
 * test-output/screenshots/, or to docs/screens/ when SLIPCHECK_UPDATE_SCREENS=1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import { createSandboxLine, SANDBOX_LOGIN_CHANNEL, type SandboxLine } from '@slipcheck/sandbox-line';
import type { Container } from '../../src/container.js';
import { runDemo } from '../../src/cli/demo-command.js';
import { LINE_EVENT_JOB } from '../../src/modules/line/line-event-log.js';
import { startSandbox } from '../helpers/sandbox.js';
import { MINI_TEXT } from '../../../web/src/miniapp/miniapp-dict.js';
import { LINE_LOGIN_TEXT } from '../../../web/src/components/line-login-text.js';
import { launchChromium, thaiContext, warnIfNoChromium, HAS_CHROMIUM } from '../helpers/browser.js';
import { closeInOrder, ensureWebBuilt, startServedApp } from '../helpers/served-app.js';

warnIfNoChromium('LINE simulator e2e');

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../../../..');
const SCREENS =
  process.env.SLIPCHECK_UPDATE_SCREENS === '1' ? path.join(REPO, 'docs/screens') : path.resolve(HERE, '../../test-output/screenshots');

describe.skipIf(!HAS_CHROMIUM)('LINE through the chat simulator (Chromium, 390x844)', { timeout: 120_000 }, () => {
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let line: SandboxLine;
  let c: Container;
  let app: FastifyInstance;
  let base: string;
  let dataDir: string;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let demo: Awaited<ReturnType<typeof runDemo>>;

  const bubbles = () => page.locator('.fx-bubble');
  const lastBubble = () => bubbles().last();
  const shot = (name: string) => page.screenshot({ path: path.join(SCREENS, `line-simulator-${name}.png`) });
  /** Sends a sandbox bank slip from the picker; `edit`: the sandbox bank's edited render (another printed amount). */
  const sendSlip = async (transRef: string, variant = 'clean', edit = '') => {
    await page.locator('#plus').click();
    await page.locator('#variant').selectOption(variant);
    await page.locator('#edit').selectOption(edit);
    await page.locator('#transfers button', { hasText: transRef }).click();
  };
  const botLines = async () => {
    const ch = demo.line!.channelId!;
    const state = await (await fetch(`${line.url}/sandbox/state`)).json();
    const customer = state.people[0].sub as string;
    const lines = (await (await fetch(`${line.url}/sandbox/lines?channelId=${ch}&chat=user&userId=${customer}`)).json()) as Array<{
      from: string;
    }>;
    return lines.filter((l) => l.from === 'bot').length;
  };
  /**
   * Every LINE event job has run to its end (done, or given up): nothing more can reach the chat from
   * them, so a count read after this is final (a job run again, or retried, would still be pending).
   */
  const lineJobsSettled = () =>
    expect
      .poll(
        async () =>
          (await c.db.selectFrom('outbox').select('id').where('kind', '=', LINE_EVENT_JOB).where('status', '=', 'pending').execute())
            .length,
        { timeout: 30_000 },
      )
      .toBe(0);

  beforeAll(async () => {
    ensureWebBuilt('miniapp.html');
    fs.mkdirSync(SCREENS, { recursive: true });
    bank = await startSandbox();
    line = await createSandboxLine({ simulator: { bankUrl: bank.url } });
    ({ c, app, base, dataDir } = await startServedApp(
      bank.url,
      {
        LINE_API_BASE_URL: line.url,
        LINE_DATA_API_BASE_URL: line.url,
        LINE_LOGIN_AUTHORIZE_URL: `${line.url}/oauth2/v2.1/authorize`,
        LINE_LOGIN_CHANNEL_ID: SANDBOX_LOGIN_CHANNEL.channelId,
        LINE_LOGIN_CHANNEL_SECRET: SANDBOX_LOGIN_CHANNEL.channelSecret,
        LIFF_ID: SANDBOX_LOGIN_CHANNEL.liffId,
        LIFF_MOCK: 'true',
        SANDBOX_LINE_PORT: String(line.port),
        LINE_HTTP_RETRIES: '2',
        LINE_HTTP_TIMEOUT_MS: '3000',
        SLIP_EDIT_MODE: 'reject', // the default, stated: an edited slip is FRAUD EDITED_SLIP
      },
      { prefix: 'slipcheck-linesim-' },
    ));
    line.addLoginChannel({
      ...SANDBOX_LOGIN_CHANNEL,
      // The service names its callback after PUBLIC_URL, unset here (http://127.0.0.1:3000): also registered,
      // and the browser test that signs in with LINE sends it on to this server (cookies do not mind the port).
      callbackUrls: [
        `${base}/api/dashboard/auth/line/callback`,
        `${c.config.PUBLIC_URL || 'http://127.0.0.1:3000'}/api/dashboard/auth/line/callback`,
      ],
      liffEndpoint: `${base}/miniapp`,
    });
    demo = await runDemo(
      { config: { ...c.config, PUBLIC_URL: base }, shops: c.shops, payees: c.payees, apiKeys: c.apiKeys, line: c.line },
      { out: path.join(dataDir, 'demo-slip.png') },
    );
    expect(demo.line).toMatchObject({ simulator: `${line.url}/`, groupLinkCode: expect.stringMatching(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/) });

    browser = await launchChromium();
    ctx = await thaiContext(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    page = await ctx.newPage();
    page.setDefaultTimeout(20_000);
  }, 120_000);

  afterAll(() => closeInOrder([ctx, browser, app, c, bank, line], dataDir), 60_000);
  /** The LINE user the mini-app test links (its ID token's `sub`). */
  let linkedSub = '';

  it("a customer's genuine slip in the 1:1 chat gets the customer wording, drawn from its Flex JSON", async () => {
    await page.goto(demo.line!.simulator!);
    await page.getByText('โปรแกรมจำลอง LINE').waitFor();
    await sendSlip(demo.transRef);
    await expect.poll(() => lastBubble().textContent()).toContain('ได้รับยอดโอนแล้ว');
    expect(await lastBubble().textContent()).toContain('120.00');
    await page.getByText('ภาพประมาณของ Flex Message').first().waitFor();
    await shot('1to1-th');
  });

  it('the group (staff): linked with the code, then the same transfer is a duplicate, a resent image a replay, in staff wording', async () => {
    await page.locator('#chat').selectOption(`${demo.line!.channelId}:group`);
    await page.locator('#text').fill(demo.line!.groupLinkCode!);
    await page.locator('#send').click();
    await page.getByText('เชื่อมกลุ่มนี้กับร้าน').waitFor();
    // Another picture of the transfer the customer already paid with.
    await sendSlip(demo.transRef, 'jpeg70');
    await expect.poll(() => lastBubble().textContent()).toContain('สลิปซ้ำ');
    expect(await lastBubble().textContent()).not.toContain('เคยใช้ชำระแล้ว'); // the customer's words
    // The same picture again: a replay, never a fresh verdict.
    await page.locator('button[data-name="replay"]').last().click();
    await expect.poll(() => lastBubble().textContent()).toContain('รูปสลิปนี้เคยตรวจแล้ว');
    // A fresh transfer in the group: staff wording of a genuine slip.
    const { transRef } = await bank.register({ amount: 89, receiver: { name: 'ร้านตัวอย่าง', account: '1234566609', bankCode: '004' } });
    await sendSlip(transRef);
    // The amount read (SLIP_EDIT_MODE) makes a verdict take longer than the poll's default second.
    await expect.poll(() => lastBubble().textContent(), { timeout: 30_000 }).toContain('สลิปถูกต้อง');
    await shot('group-th');
  });

  it("an edited slip (the picture prints 1,100.00, the bank 100.00): the customer's warning in 1:1, the staff wording in the group", async () => {
    const shop = { name: 'ร้านตัวอย่าง', account: '1234566609', bankCode: '004' };
    // The classic layout, clean, a digit added: a render the amount reader reads (test/verify/edited-slip.test.ts).
    await page.locator('#chat').selectOption(`${demo.line!.channelId}:user`);
    const forCustomer = await bank.register({ amount: 100, receiver: shop });
    await sendSlip(forCustomer.transRef, 'clean', 'add');
    await expect.poll(() => lastBubble().textContent(), { timeout: 30_000 }).toContain('ยอดเงินในสลิปไม่ตรงกับธนาคาร');
    const customer = await lastBubble().textContent();
    expect(customer).toContain('รูปสลิประบุยอด 1,100.00 บาท แต่ธนาคารแจ้งยอดโอน 100.00 บาท');
    expect(customer).not.toContain('อย่าส่งสินค้า'); // staff words, never told to the customer

    await page.locator('#chat').selectOption(`${demo.line!.channelId}:group`);
    const forStaff = await bank.register({ amount: 100, receiver: shop });
    await sendSlip(forStaff.transRef, 'clean', 'add');
    await expect.poll(() => lastBubble().textContent(), { timeout: 30_000 }).toContain('สลิปถูกแก้ไขยอดเงิน');
    expect(await lastBubble().textContent()).toContain('รูปสลิประบุ 1,100.00 บาท แต่ธนาคารแจ้ง 100.00 บาท: สลิปนี้ถูกแก้ไข อย่าส่งสินค้าตามยอดในรูป');
    await shot('edited-group-th');
  });

  it('LINE failing three times still ends with one honest answer', async () => {
    await page.locator('#chat').selectOption(`${demo.line!.channelId}:user`);
    const before = await botLines();
    await page.locator('#menu').click();
    await page.locator('button[data-fault="reply5xx"]').click();
    await expect.poll(() => page.locator('#faults').textContent()).toContain('3');
    await page.locator('#menu').click();
    const { transRef } = await bank.register({ amount: 250, receiver: { name: 'ร้านตัวอย่าง', account: '1234566609', bankCode: '004' } });
    await sendSlip(transRef);
    // Three 500s use up the first run; the outbox runs the job again and the reply goes through once.
    await expect.poll(() => lastBubble().textContent(), { timeout: 30_000 }).toContain('250.00');
    expect(await lastBubble().textContent()).toContain('ได้รับยอดโอนแล้ว');
    await lineJobsSettled();
    expect(await botLines()).toBe(before + 1);
    expect(line.hits.reply).toBeGreaterThanOrEqual(4);

    // LINE's redelivery of that event (same webhookEventId): answered already, so nothing new is posted.
    const redelivered = page.waitForResponse((r) => r.url().endsWith('/sandbox/redeliver'));
    await page.locator('button[data-name="resend"]').last().click();
    expect((await (await redelivered).json()).delivery).toMatchObject({ status: 200 }); // the service took it
    await lineJobsSettled();
    expect(await botLines()).toBe(before + 1);
  });

  it('reply tokens expired and the monthly limit reached: the push is refused with 429 and nothing reaches the chat', async () => {
    const before = await botLines();
    const pushes = line.hits.push;
    await page.locator('#menu').click();
    await page.locator('#expire').check();
    await page.locator('#monthly').check();
    await expect.poll(async () => (await (await fetch(`${line.url}/sandbox/state`)).json()).channels[0].monthlyLimit).not.toBeNull();
    await page.locator('#menu').click();
    const { transRef } = await bank.register({ amount: 42, receiver: { name: 'ร้านตัวอย่าง', account: '1234566609', bankCode: '004' } });
    await sendSlip(transRef);
    await expect.poll(() => line.hits.push, { timeout: 15_000 }).toBeGreaterThan(pushes);
    await lineJobsSettled();
    expect(await botLines()).toBe(before);
    expect(line.hits.push).toBe(pushes + 1); // LINE's monthly limit is final: never retried
    const account = (await (await fetch(`${line.url}/sandbox/state`)).json()).channels[0];
    expect(account.usage).toBe(account.monthlyLimit); // refused with 429, not counted
    await page.locator('#menu').click();
    await page.locator('#reset').click();
    await expect.poll(() => page.locator('#monthly').isChecked()).toBe(false);
    await page.locator('#menu').click();
  });

  it("the mini-app opens inside it, signed in through the sandbox LINE Login with a nonce, links with a code, checks a slip and shows today's total", async () => {
    const signup = await app.inject({
      method: 'POST',
      url: '/api/dashboard/auth/signup',
      payload: { email: `owner${Date.now()}@example.com`, password: 'correct horse battery', shopName: 'ร้านมินิในแชท', planCode: 'STARTER' },
    });
    expect(signup.statusCode).toBe(201);
    const shopId = signup.json().data.shop.id as string;
    await c.shops.setPlan(shopId, 'STARTER', 'test');
    await c.payees.add(shopId, { bankCode: '004', accountNumber: '1234566609', holder: 'ร้านมินิในแชท' }, 'test');
    const codeRes = await app.inject({
      method: 'POST',
      url: '/api/dashboard/line-login/code',
      headers: { authorization: `Bearer ${signup.json().data.accessToken}` },
    });
    const code = codeRes.json().data.code as string;

    const verifyCalls = line.login.verifyCalls;
    await page.locator('#menu').click();
    await page.locator('#miniapp').click();
    await page.waitForURL(/\/miniapp\?mockIdToken=/);
    const token = new URL(page.url()).searchParams.get('mockIdToken')!;
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
    linkedSub = claims.sub;
    expect(claims).toMatchObject({
      iss: 'https://access.line.me',
      aud: SANDBOX_LOGIN_CHANNEL.channelId,
      nonce: expect.stringMatching(/^[\w-]{20,}$/),
    });
    await page.getByText(MINI_TEXT.th.notLinkedTitle).waitFor();
    await page.getByTestId('link-code').fill(code);
    await page.getByRole('button', { name: MINI_TEXT.th.link }).click();
    await page.getByText('ร้านมินิในแชท').waitFor();
    expect(line.login.verifyCalls).toBeGreaterThan(verifyCalls);

    const { transRef } = await bank.register({ amount: 310.5 });
    const file = path.join(dataDir, 'mini-slip.png');
    fs.writeFileSync(file, await bank.slip(transRef));
    await page.getByTestId('slip-input').setInputFiles(file);
    await expect.poll(() => page.locator('article.result').last().getAttribute('data-variant')).toBe('genuine');
    await page.getByRole('tab', { name: MINI_TEXT.th.tabToday }).click();
    await expect.poll(() => page.getByTestId('today-total').textContent()).toContain('310.50');
    await shot('miniapp-today-th');
  });

  it('"Log in with LINE" from a link to the day (the daily summary in LINE) opens that day after signing in', async () => {
    // The LINE user the mini-app linked above, picked on LINE's consent page as a person would.
    const sub = linkedSub;
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Bangkok' }).format(new Date());
    const other = await thaiContext(browser, { viewport: { width: 390, height: 844 } });
    try {
      const p = await other.newPage();
      const callback = new URL('/api/dashboard/auth/line/callback', c.config.PUBLIC_URL || 'http://127.0.0.1:3000');
      if (callback.origin !== base)
        await p.route(`${callback.origin}/**`, (route) => {
          const u = new URL(route.request().url());
          return route.fulfill({ status: 302, headers: { location: `${base}${u.pathname}${u.search}` } });
        });
      await p.goto(`${base}/transactions?from=${day}&to=${day}`);
      await p.getByRole('heading', { level: 1, name: 'เข้าสู่ระบบ' }).waitFor();
      await p.getByRole('link', { name: LINE_LOGIN_TEXT.th.loginWithLine }).click();
      // The sandbox asks who you are, unless the simulator already chose (as the LINE app knows its user).
      const who = p.locator(`form:has(input[name="sub"][value="${sub}"]) button.who`);
      const list = p.getByRole('heading', { level: 1, name: 'รายการตรวจสลิป' });
      const overview = p.getByRole('heading', { level: 1, name: 'ภาพรวม' });
      await who.or(list).or(overview).first().waitFor();
      if (await who.isVisible()) await who.click();
      await list.or(overview).first().waitFor();
      expect(p.url()).toBe(`${base}/transactions?from=${day}&to=${day}`);
    } finally {
      await other.close();
    }
  });

  it('speaks English on the switch', async () => {
    await page.goto(`${demo.line!.simulator!}?lang=en`);
    await page.locator('#lang').click(); // th -> en (or back): the switch is remembered
    if ((await page.locator('#lang').textContent()) !== 'ไทย') await page.locator('#lang').click();
    await page.getByText('LINE simulator (sandbox)').waitFor();
    await page.getByText('Approximation of a Flex Message').first().waitFor();
    await shot('1to1-en');
    await page.locator('#chat').selectOption(`${demo.line!.channelId}:group`);
    await bubbles().filter({ hasText: 'สลิปถูกต้อง' }).first().waitFor(); // the shop's language is Thai
    await page.locator('#menu').click();
    await page.getByText('Make LINE fail').waitFor();
    await shot('group-tools-en');
  });
});
