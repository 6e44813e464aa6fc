import { fixedClock } from '../../src/lib/clock.js';
import { createMemoryRateLimiter } from '../../src/lib/rate-limiter.js';
import { newId } from '../../src/lib/ids.js';
import { createHarness, type DbKind, type Harness } from '../helpers/harness.js';

export const ORIGIN = 'http://dash.test';
export const UA = 'Mozilla/5.0 (test) DashTest/1.0';

/** A harness whose clock and rate limiter the test drives (token expiry, limit windows). */
export async function createDashHarness(kind: DbKind, env: Record<string, string> = {}) {
  const clock = fixedClock('2026-11-10T03:00:00.000Z');
  const h = await createHarness(
    kind,
    { PUBLIC_URL: ORIGIN, ...env },
    { clock, rateLimiter: createMemoryRateLimiter(() => clock.now().getTime()) },
  );
  return { h, clock };
}

export function cookieFrom(res: { headers: Record<string, unknown> }): string | null {
  const raw = res.headers['set-cookie'];
  const line = Array.isArray(raw) ? raw[0] : (raw as string | undefined);
  if (!line) return null;
  const m = /^slipcheck_refresh=([^;]*)/.exec(line);
  return m && m[1] ? m[1] : null;
}

let n = 0;
export async function signup(
  h: Harness,
  opts: { email?: string; password?: string; shopName?: string; planCode?: string; ip?: string } = {},
) {
  const email = opts.email ?? `owner${++n}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = opts.password ?? 'correct horse battery';
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/dashboard/auth/signup',
    remoteAddress: opts.ip ?? `10.0.${n % 250}.${(n * 7) % 250}`,
    headers: { 'user-agent': UA },
    payload: { email, password, shopName: opts.shopName ?? 'ร้านทดสอบ', planCode: opts.planCode ?? 'STARTER' },
  });
  if (res.statusCode !== 201) throw new Error(`signup failed ${res.statusCode} ${res.body}`);
  const data = res.json().data;
  return {
    email,
    password,
    token: data.accessToken as string,
    shopId: data.shop.id as string,
    userId: data.user.id as string,
    refresh: cookieFrom(res)!,
    auth: { authorization: `Bearer ${data.accessToken}` },
    res,
  };
}
export type Owner = Awaited<ReturnType<typeof signup>>;

/** A stored result of the shop, as the pipeline would write it (status and fields overridable). */
export async function seedTx(h: Harness, shopId: string, at: Date, status: string, extra: Record<string, unknown> = {}) {
  const id = newId('txn', at.getTime());
  await h.c.db
    .insertInto('transactions')
    .values({
      id,
      shop_id: shopId,
      source: 'API',
      environment: 'live',
      status,
      trans_ref: `R${id.slice(-10)}`,
      amount_satang: 10050,
      expected_amount_satang: null,
      bank_code: '004',
      bank_name: 'KBANK',
      sender_name: 'นาย ก',
      sender_account: 'xxx-x-x1234-x',
      receiver_name: 'ร้าน',
      receiver_account: 'xxx-x-x6660-x',
      trans_date: at.toISOString(),
      error_code: null,
      error_message: null,
      duplicate: 0,
      stale: 0,
      charged: 1,
      latency_ms: 10,
      client_ref: null,
      image_hash: null,
      api_key_id: null,
      success_ref: null,
      anonymized_at: null,
      created_at: at.toISOString(),
      ...extra,
    })
    .execute();
  return id;
}
