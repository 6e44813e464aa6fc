import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/lib/metrics.js';
import { createHarness, type Harness, seedShop, skipReason } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { startTcpRelay } from '../helpers/tcp-relay.js';
import { signup } from '../dashboard/dash-helpers.js';

const REDIS = process.env.TEST_REDIS_URL;
const ORIGIN = 'http://dash.test';

/** A logger whose lines the test reads (what an operator would see). */
function capturedLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

/** Fixed one-minute windows: a burst must not straddle a minute boundary, or it gets two budgets. */
async function awayFromMinuteEdge() {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((r) => setTimeout(r, left + 200));
}

const metricValue = async (name: string) => {
  const m = (await registry.getSingleMetric(name)?.get())?.values ?? [];
  return m.reduce((s, v) => s + v.value, 0);
};

// Two API nodes on one database and one Redis; Redis is reached through a relay the test cuts
// mid-traffic. The shared Redis itself is never stopped or flushed.
describe.skipIf(!REDIS)(`Redis lost under two running nodes${skipReason('TEST_REDIS_URL')}`, () => {
  let relay: Awaited<ReturnType<typeof startTcpRelay>>;
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let a: Harness;
  let b: Harness;
  const logs = [capturedLogger(), capturedLogger()];

  beforeAll(async () => {
    relay = await startTcpRelay(REDIS!);
    bank = await startSandbox();
    const env = {
      REDIS_URL: relay.url,
      PUBLIC_URL: ORIGIN,
      CHECKER_URL: bank.url,
      DECODE_THREADS: '1',
      RATE_LIMIT_DASHBOARD: '10000',
      // Two nodes: each enforces half of every limit while Redis is away (nodes seen in Redis count too).
      RATE_LIMIT_NODES: '2',
    };
    a = await createHarness('sqlite', env, { logger: logs[0].logger });
    b = await createHarness('sqlite', { ...env, DATA_DIR: a.dataDir }, { logger: logs[1].logger });
  }, 60_000);
  afterAll(async () => {
    relay?.restore();
    await b?.close();
    await a?.close();
    await bank?.close();
    await relay?.close();
  });

  const cutAndWait = async () => {
    relay.cut();
    // ioredis notices the closed socket at once; give the close event a moment to land.
    await new Promise((r) => setTimeout(r, 100));
  };
  const restoreAndWait = async () => {
    relay.restore();
    for (const h of [a, b]) {
      for (let i = 0; i < 100 && h.c.redis!.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 100));
    }
  };
  // Each test starts with Redis reachable, even after a failed one.
  afterEach(restoreAndWait);

  it('per-key limit: 200 calls on one key across both nodes, no more than the limit of 120 pass', async () => {
    const s = await seedShop(a);
    await awayFromMinuteEdge();
    // Both nodes served traffic while Redis was up: each knows there are two of them.
    expect((await a.app.inject({ url: '/api/v1/quota', headers: s.auth })).statusCode).toBe(200);
    expect((await b.app.inject({ url: '/api/v1/quota', headers: s.auth })).statusCode).toBe(200);
    await cutAndWait();
    const codes: number[] = [];
    for (let i = 0; i < 200; i++) codes.push((await (i % 2 ? b : a).app.inject({ url: '/api/v1/quota', headers: s.auth })).statusCode);
    const passed = codes.filter((c) => c === 200).length;
    expect(passed + 2).toBeLessThanOrEqual(120);
    // Each node still serves its share (60 with two nodes; less if other test runs on the shared Redis
    // were seen as nodes too): the fallback is a limit, not an outage.
    expect(codes.filter((c, i) => c === 200 && i % 2 === 0).length).toBeGreaterThan(0);
    expect(codes.filter((c, i) => c === 200 && i % 2 === 1).length).toBeGreaterThan(0);
    expect(codes.filter((c) => c === 429)).toHaveLength(200 - passed);
  });

  it('25 wrong passwords for one account from one address get 429, not 401 each time', async () => {
    const o = await signup(a, { ip: '10.77.0.1' });
    await awayFromMinuteEdge();
    await a.app.inject({ url: '/api/v1/health' });
    await cutAndWait();
    const codes: number[] = [];
    for (let i = 0; i < 25; i++) {
      const r = await (i % 2 ? b : a).app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/login',
        remoteAddress: '10.77.0.9',
        payload: { email: o.email, password: `wrong password ${i}` },
      });
      codes.push(r.statusCode);
      if (r.statusCode === 429) expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    }
    // RATE_LIMIT_LOGIN is 5 a minute for the whole fleet.
    expect(codes.filter((c) => c === 401).length).toBeLessThanOrEqual(5);
    expect(codes.filter((c) => c === 429).length).toBeGreaterThanOrEqual(20);
  });

  it('link-code guesses stay throttled', async () => {
    await awayFromMinuteEdge();
    await cutAndWait();
    const codes: number[] = [];
    for (let i = 0; i < 60; i++) {
      const node = i % 2 ? b : a;
      // A well-formed guess: a fresh sign-in nonce each time, as the mini-app sends.
      const n = await node.app.inject({
        method: 'POST',
        url: '/api/miniapp/nonce',
        remoteAddress: '10.78.0.1',
        headers: { origin: ORIGIN },
      });
      const cookie = /^(slipcheck_line_nonce=[^;]+)/.exec(String([n.headers['set-cookie']].flat()[0]))![1]!;
      const r = await node.app.inject({
        method: 'POST',
        url: '/api/miniapp/link',
        remoteAddress: '10.78.0.1',
        headers: { origin: ORIGIN, cookie },
        payload: { idToken: 'not.a.real-token', nonce: n.json().data.nonce, code: `GUESS${i}` },
      });
      codes.push(r.statusCode);
    }
    // The LINE sign-in budget is RATE_LIMIT_LOGIN x 4 = 20 a minute per address, fleet-wide.
    expect(codes.filter((c) => c !== 429).length).toBeLessThanOrEqual(20);
    expect(codes.filter((c) => c === 429).length).toBeGreaterThanOrEqual(40);
  });

  it('readiness stays 200 and says redis down (degraded); a metric says so; the outage is logged once per node', async () => {
    const before = logs.map((l) => l.lines.filter((x) => /Redis unreachable/.test(x.msg)).length);
    const shops = [await seedShop(a), await seedShop(b)];
    // A call on each node while Redis answers takes its limiter out of fallback (left from the tests above).
    for (const [i, h] of [a, b].entries()) await h.app.inject({ url: '/api/v1/quota', headers: shops[i]!.auth });
    const fallbacksBefore = await metricValue('slipcheck_rate_limit_fallback');
    await cutAndWait();
    for (const [n, h] of [a, b].entries()) {
      const s = shops[n]!;
      for (let i = 0; i < 5; i++) await h.app.inject({ url: '/api/v1/quota', headers: s.auth });
      const r = await h.app.inject({ url: '/health' });
      expect(r.statusCode).toBe(200);
      expect(r.json()).toMatchObject({ status: 'degraded', checks: { database: { status: 'up' }, redis: { status: 'down' } } });
    }
    expect(await metricValue('slipcheck_redis_up')).toBe(0);
    expect(await metricValue('slipcheck_rate_limit_fallback')).toBe(fallbacksBefore + 2); // both nodes' limiters, on their shares
    const during = logs.map((l) => l.lines.filter((x) => /Redis unreachable/.test(x.msg)).length);
    expect(during.map((n, i) => n - before[i])).toEqual([1, 1]);
    await restoreAndWait();
    const s = await seedShop(a);
    await a.app.inject({ url: '/api/v1/quota', headers: s.auth });
    const r = await a.app.inject({ url: '/health' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'ok', checks: { redis: { status: 'up' } } });
    expect(logs[0].lines.some((x) => /Redis reachable again/.test(x.msg))).toBe(true);
  });

  it('a test-key check while Redis is down never touches the live quota: it is counted as a test call', async () => {
    const live = await seedShop(a);
    const testKey = await a.c.apiKeys.create(live.shop.id, { environment: 'test', scopes: 'verify,read' }, 'test');
    await a.c.quota.adjust(live.shop.id, { used: 72 }, 'test');
    await cutAndWait();
    const t = await bank.register();
    const r = await b.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      headers: { authorization: `Bearer ${testKey.key}`, 'content-type': 'application/octet-stream' },
      payload: await bank.slip(t.transRef),
    });
    expect(r.statusCode).toBe(200);
    expect(r.json().data).toMatchObject({ status: 'SUCCESS', environment: 'test' });
    const snap = await a.c.quota.snapshot(live.shop, (await a.c.plans.get('STARTER'))!);
    expect(snap.used).toBe(72);
    expect((await a.c.quota.testSnapshot(live.shop.id)).used).toBe(1);
    const me = (await a.app.inject({ url: '/api/v1/me', headers: { authorization: `Bearer ${testKey.key}` } })).json().data;
    expect(me.testQuota).toEqual({ used: 1, limit: 200, remaining: 199 });
  }, 30_000);
});
