import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { createHarness, seedShop, type DbKind, type Harness } from './harness.js';
import { startSandbox } from './sandbox.js';

/** Limits high enough that a test's own burst never meets them (tests of the limits set their own). */
export const NO_RATE_LIMITS = { RATE_LIMIT_PER_KEY: '100000', RATE_LIMIT_VERIFY_PER_SHOP: '100000' };

/**
 * A harness checking against the sandbox bank over real HTTP on loopback (one decoder thread unless
 * `env` says otherwise). With `listen`, the app also serves on a loopback port (`base`).
 */
export async function createBankHarness(kind: DbKind, env: Record<string, string> = {}, opts: { listen?: boolean } = {}) {
  const bank = await startSandbox();
  const h: Harness = await createHarness(kind, { CHECKER_URL: bank.url, DECODE_THREADS: '1', ...env });
  let base = '';
  if (opts.listen) {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  }
  return {
    h,
    bank,
    base,
    async close() {
      await h.close();
      await bank.close();
    },
  };
}

/**
 * For a describe block: one shop with a live key against the sandbox bank (no rate limits), set up
 * before its tests and closed after them. `verify` posts raw bytes to /api/v1/verify; `used` is the
 * shop's live units this period. `h`, `bank` and `s` are read once the block's setup has run.
 */
export function shopVerifyKit(kind: DbKind) {
  let h: Harness;
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let s: Awaited<ReturnType<typeof seedShop>>;
  beforeAll(async () => {
    ({ h, bank } = await createBankHarness(kind, NO_RATE_LIMITS));
    s = await seedShop(h);
  });
  afterAll(async () => {
    await h.close();
    await bank.close();
  });
  return {
    get h() {
      return h;
    },
    get bank() {
      return bank;
    },
    get s() {
      return s;
    },
    verify: (payload: Buffer, query = '') =>
      h.app.inject({
        method: 'POST',
        url: `/api/v1/verify${query}`,
        headers: { ...s.auth, 'content-type': 'application/octet-stream' },
        payload,
      }),
    used: async () =>
      (await h.c.db.selectFrom('quota_usage').select('used').where('shop_id', '=', s.shop.id).executeTakeFirst())?.used ?? 0,
  };
}

/** The environment a CLI run needs to open this harness's database (same data dir and database). */
export function cliEnv(h: Harness): Record<string, string> {
  return {
    NODE_ENV: 'test',
    DATA_DIR: h.dataDir,
    DATABASE_URL: h.config.DATABASE_URL,
    LOG_LEVEL: 'silent',
    SANDBOX_AUTOSTART: 'false',
    WORKER_MODE: 'off',
  };
}

/** POST /api/v1/verify over real HTTP: the status and the parsed body. */
export async function postVerify(base: string, auth: Record<string, string>, image: Buffer) {
  const r = await fetch(`${base}/api/v1/verify`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/octet-stream' },
    body: new Uint8Array(image),
  });
  return { status: r.status, body: await r.json() };
}
