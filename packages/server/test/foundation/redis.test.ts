import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, seedShop, skipReason } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';

const REDIS = process.env.TEST_REDIS_URL;
if (!REDIS) console.warn('[slipcheck tests] TEST_REDIS_URL not set: Redis-backed rate-limit and test-counter tests SKIPPED');

describe.skipIf(!REDIS)(`with Redis: limits and the test counter are shared by every node${skipReason('TEST_REDIS_URL')}`, () => {
  let a: Harness;
  let b: Harness;
  beforeAll(async () => {
    a = await createHarness('sqlite', { REDIS_URL: REDIS!, RATE_LIMIT_PER_KEY: '4' });
    // A second node on the same database and Redis.
    b = await createHarness('sqlite', { REDIS_URL: REDIS!, RATE_LIMIT_PER_KEY: '4', DATA_DIR: a.dataDir });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('two nodes share one per-key limit', async () => {
    const s = await seedShop(a);
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) codes.push((await (i % 2 ? b : a).app.inject({ url: '/api/v1/quota', headers: s.auth })).statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(4);
    expect(codes.filter((c) => c === 429)).toHaveLength(2);
  });

  it('test usage (counted in the database) reads the same from either node', async () => {
    const s = await seedShop(a, { env: 'test' });
    await a.c.quota.adjust(s.shop.id, { testUsed: 17 }, 'test');
    const me = (await b.app.inject({ url: '/api/v1/me', headers: s.auth })).json().data;
    expect(me.testQuota).toEqual({ used: 17, limit: 200, remaining: 183 });
  });

  it('readiness reports Redis', async () => {
    expect((await a.app.inject({ url: '/health' })).json().checks.redis.status).toBe('up');
  });
});

describe('a node whose Redis never answers', () => {
  let h: Harness;
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  beforeAll(async () => {
    bank = await startSandbox();
    // Nothing listens on port 1: Redis is "down" for this node.
    h = await createHarness('sqlite', { REDIS_URL: 'redis://127.0.0.1:1', CHECKER_URL: bank.url, DECODE_THREADS: '1' });
  });
  afterAll(async () => {
    await h.close();
    await bank.close();
  });

  it('test keys keep their own cap (never the shop pool), and readiness stays 200 but says degraded', async () => {
    const s = await seedShop(h, { env: 'test' });
    const me = (await h.app.inject({ url: '/api/v1/me', headers: s.auth })).json().data;
    expect(me.testQuota).toEqual({ used: 0, limit: 200, remaining: 200 });
    const t = await bank.register();
    const r = await h.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      headers: { ...s.auth, 'content-type': 'application/octet-stream' },
      payload: await bank.slip(t.transRef),
    });
    expect(r.statusCode).toBe(200);
    expect(r.json().data).toMatchObject({ status: 'SUCCESS', environment: 'test' });
    expect((await h.c.quota.testSnapshot(s.shop.id)).used).toBe(1);
    expect((await h.c.quota.snapshot(s.shop, await h.c.plans.get('STARTER'))).used).toBe(0);
    const health = await h.app.inject({ url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'degraded', checks: { database: { status: 'up' }, redis: { status: 'down' } } });
  });
});
