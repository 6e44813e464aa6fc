import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckerFromConfig } from '../../src/modules/checker/checker-factory.js';
import { startFakeUpstream, type FakeUpstream, type Reply } from './fake-upstream.js';

const q = { payload: 'p', bankCode: '004', transRef: 'ref123456789' };
const sandboxFound = {
  status: 'FOUND',
  data: {
    transRef: 'ref123456789',
    sendingBank: '004',
    receivingBank: '004',
    amount: 10,
    transDate: '2026-01-01T07:00:00+07:00',
    sender: { name: 'a', account: 'xxx' },
    receiver: { name: 'b', account: 'xxx-x-x6660-x', proxy: null },
  },
};

let esReply: Reply = { status: 500, body: { success: false, error: { code: 'API_SERVER_ERROR', message: '' } } };
let es: FakeUpstream;
let sb: FakeUpstream;
beforeAll(async () => {
  es = await startFakeUpstream(() => esReply);
  sb = await startFakeUpstream(() => ({ status: 200, body: sandboxFound }));
});
afterAll(async () => {
  await es.close();
  await sb.close();
});

describe('createCheckerFromConfig', () => {
  it('easyslip,sandbox: a failing provider is retried, then the sandbox answers', async () => {
    const c = createCheckerFromConfig({
      checker: 'easyslip, sandbox',
      checkerUrl: [es.url, sb.url],
      checkerKey: ['a1b2c3d4-e5f6-4890-abcd-ef1234567890', ''],
      timeoutMs: 2_000,
      maxAttempts: 2,
    });
    try {
      const r = await c.check(q);
      expect(r).toMatchObject({ kind: 'FOUND', slip: { transDate: '2026-01-01T00:00:00.000Z' } });
      expect(es.requests.length).toBe(2);
      expect(sb.requests.at(-1)!.headers.authorization).toBeUndefined();
    } finally {
      await c.close();
    }
  });

  it('NOT_FOUND from the first provider is final', async () => {
    esReply = { status: 404, body: { success: false, error: { code: 'SLIP_NOT_FOUND', message: '' } } };
    const before = sb.requests.length;
    const c = createCheckerFromConfig({
      checker: 'easyslip,sandbox',
      checkerUrl: `${es.url},${sb.url}`,
      checkerKey: 'a1b2c3d4-e5f6-4890-abcd-ef1234567890,',
      timeoutMs: 2_000,
    });
    try {
      expect(await c.check(q)).toEqual({ kind: 'NOT_FOUND' });
      expect(sb.requests.length).toBe(before);
    } finally {
      await c.close();
    }
  });

  it('reuses one keep-alive connection for sequential checks', async () => {
    const before = sb.connections;
    const c = createCheckerFromConfig({ checker: 'sandbox', checkerUrl: sb.url, timeoutMs: 2_000 });
    try {
      for (let i = 0; i < 10; i++) expect((await c.check(q)).kind).toBe('FOUND');
      // undici may open a second socket while the first is being returned to the pool; without
      // keep-alive this would be 10
      expect(sb.connections - before).toBeLessThanOrEqual(2);
    } finally {
      await c.close();
    }
  });

  it('uses an injected fetch', async () => {
    let called = 0;
    const f = (async (...args: Parameters<typeof fetch>) => {
      called++;
      return fetch(...args);
    }) as typeof fetch;
    const c = createCheckerFromConfig({ checker: 'sandbox', checkerUrl: sb.url, timeoutMs: 2_000, fetch: f });
    expect((await c.check(q)).kind).toBe('FOUND');
    expect(called).toBe(1);
  });

  it.each([
    [{ checker: 'nope', checkerUrl: 'http://x' }, /unknown checker/],
    [{ checker: '', checkerUrl: 'http://x' }, /empty/],
    [{ checker: 'easyslip', checkerUrl: '' }, /CHECKER_KEY/],
    [{ checker: 'sandbox', checkerUrl: '' }, /CHECKER_URL/],
    [{ checker: 'sandbox,sandbox,sandbox', checkerUrl: ['a', 'b'] }, /2 entries for 3/],
  ])('rejects bad config %j', (cfg, msg) => {
    expect(() => createCheckerFromConfig({ timeoutMs: 1000, fetch: fetch, ...cfg })).toThrow(msg);
  });
});
