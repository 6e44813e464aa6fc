// What the two mini-app browser tests (miniapp.e2e, quota-wall-reuse.e2e) share: the real service on
// loopback with the sandbox bank as checker, a fake LINE Login platform and @line/liff-mock, and a shop
// signed up through the dashboard with one KBANK payee account.
import { expect } from 'vitest';
import { startSandbox } from '../helpers/sandbox.js';
import { startFakeLineLogin } from '../line-login/fake-line-login.js';
import { ensureWebBuilt, startServedApp } from '../helpers/served-app.js';

export const MINI_PASSWORD = 'correct horse battery';

/** `liffSuffix` and `prefix` keep each test's LIFF id and data folder its own; `env` adds settings. */
export async function startMiniAppStack(opts: {
  channelId: string;
  liffSuffix: string;
  prefix: string;
  shopName: string;
  env?: Record<string, string>;
}) {
  ensureWebBuilt('miniapp.html');
  const bank = await startSandbox();
  const fake = await startFakeLineLogin({ channelId: opts.channelId, channelSecret: 'x', now: () => new Date() });
  const served = await startServedApp(
    bank.url,
    {
      LINE_API_BASE_URL: fake.url,
      LINE_LOGIN_CHANNEL_ID: opts.channelId,
      LIFF_ID: `${opts.channelId}-${opts.liffSuffix}`,
      LIFF_MOCK: 'true',
      ...opts.env,
    },
    { prefix: opts.prefix },
  );
  const email = `owner${Date.now()}@example.com`;
  const signup = await served.app.inject({
    method: 'POST',
    url: '/api/dashboard/auth/signup',
    payload: { email, password: MINI_PASSWORD, shopName: opts.shopName, planCode: 'STARTER' },
  });
  expect(signup.statusCode).toBe(201);
  const shopId: string = signup.json().data.shop.id;
  const ownerAuth = { authorization: `Bearer ${signup.json().data.accessToken}` };
  await served.c.payees.add(shopId, { bankCode: '004', accountNumber: '1234566609', holder: 'บจก. ร้านกาแฟ ทดสอบ' }, 'test');
  return { ...served, bank, fake, email, shopId, ownerAuth };
}
