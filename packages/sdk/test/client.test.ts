import { getEventListeners } from 'node:events';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  SlipcheckApiError,
  SlipcheckConnectionError,
  createSlipcheckClient,
  type SlipcheckClientOptions,
} from '../src/index.js';
import { QUOTA_HEADERS, errorBody, record, startFakeApi } from './fake-api.js';

const API_KEY = 'sk_live_test_key_123';
// Not an image decoder test: any bytes will do, but keep a PNG signature and a non-UTF-8 byte.
const IMAGE = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00]), Buffer.alloc(5000, 7)]);

let api: Awaited<ReturnType<typeof startFakeApi>>;
let sleeps: number[];

beforeAll(async () => {
  api = await startFakeApi();
});
afterAll(async () => {
  await api.close();
});
afterEach(() => {
  api.reset();
});

function client(extra: Partial<SlipcheckClientOptions> = {}) {
  sleeps = [];
  return createSlipcheckClient({
    apiKey: API_KEY,
    baseUrl: api.baseUrl,
    // Record the waits instead of sleeping: the assertion is on what the client decided to wait.
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...extra,
  });
}

function ok(data: unknown, meta?: unknown) {
  return { status: 200, body: meta ? { success: true, data, meta } : { success: true, data } };
}

const verifyData = () => record('txn_1', { quota: { used: 121, limit: 1000, remaining: 879 }, clientRef: 'order-42', source: 'API' });
const verifyMeta = { requestId: 'req_verify_1', timestamp: '2025-10-09T15:00:00.000+07:00' };

describe('transactions pagination', () => {
  it('iterates every item across 3 cursor pages, keeping the filters on each page', async () => {
    const pages: Record<string, { items: unknown[]; nextCursor: string | null }> = {
      '': { items: [record('a'), record('b')], nextCursor: 'c1' },
      c1: { items: [record('c'), record('d')], nextCursor: 'c2' },
      c2: { items: [record('e')], nextCursor: null },
    };
    api.on('GET /api/v1/transactions', (req) => ok(pages[req.query.get('cursor') ?? '']));
    const c = client();
    const ids: string[] = [];
    for await (const item of c.transactions({ status: 'SUCCESS', limit: 2, from: new Date('2025-10-01T00:00:00Z') })) {
      ids.push(item.id);
    }
    expect(ids).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(api.requests.map((r) => r.query.get('cursor'))).toEqual([null, 'c1', 'c2']);
    for (const r of api.requests) {
      expect(r.query.get('status')).toBe('SUCCESS');
      expect(r.query.get('limit')).toBe('2');
      expect(r.query.get('from')).toBe('2025-10-01T00:00:00.000Z');
      expect(r.headers.authorization).toBe(`Bearer ${API_KEY}`);
    }
  });

  it('listTransactions returns one page with its cursor and quota headers', async () => {
    api.on('GET /api/v1/transactions', () => ok({ items: [record('x')], nextCursor: 'next' }));
    const page = await client().listTransactions({ clientRef: 'order-42' });
    expect(page.items.map((i) => i.id)).toEqual(['x']);
    expect(page.nextCursor).toBe('next');
    expect(page.quotaHeaders).toEqual({ limit: 1000, used: 120, remaining: 880, resetDays: 12 });
    expect(api.requests[0].query.get('clientRef')).toBe('order-42');
  });

  it('listTransactions sends every filter of the API, environment included', async () => {
    api.on('GET /api/v1/transactions', () => ok({ items: [], nextCursor: null }));
    await client().listTransactions({
      status: 'SUCCESS,DUPLICATE',
      source: 'API',
      transRef: 'REF1',
      clientRef: 'order-1',
      environment: 'test',
      from: new Date('2025-10-01T00:00:00Z'),
      to: '2025-10-02T00:00:00Z',
      cursor: 'c1',
      limit: 5,
    });
    expect(Object.fromEntries(api.requests[0].query)).toEqual({
      status: 'SUCCESS,DUPLICATE',
      source: 'API',
      transRef: 'REF1',
      clientRef: 'order-1',
      environment: 'test',
      from: '2025-10-01T00:00:00.000Z',
      to: '2025-10-02T00:00:00Z',
      cursor: 'c1',
      limit: '5',
    });
  });

  it('stops instead of looping when the server repeats a cursor', async () => {
    api.on('GET /api/v1/transactions', () => ok({ items: [record('x')], nextCursor: 'same' }));
    const seen: string[] = [];
    await expect(async () => {
      for await (const item of client().transactions()) seen.push(item.id);
    }).rejects.toThrow(/repeated/);
    expect(api.requests.length).toBe(2);
  });
});

describe('retries', () => {
  it('waits for Retry-After on 429 and then succeeds (GET)', async () => {
    const quota = {
      used: 1,
      limit: 10,
      remaining: 9,
      percentUsed: 10,
      allowOverage: false,
      planCode: 'PRO',
      periodMonth: '2025-10',
      daysUntilReset: 22,
    };
    api.on('GET /api/v1/quota', (req, nth) =>
      nth === 0
        ? { status: 429, headers: { 'retry-after': '2' }, body: errorBody(429, 'Too Many Requests', 'Slow down', req.path) }
        : ok(quota),
    );
    await expect(client().quota()).resolves.toEqual(quota);
    expect(api.requests.length).toBe(2);
    expect(sleeps).toEqual([2000]);
  });

  it('retries a 500 on GET with backoff and then succeeds', async () => {
    api.on('GET /api/v1/me', (req, nth) =>
      nth < 2 ? { status: 500, body: errorBody(500, 'Internal Server Error', 'oops', req.path) } : ok({ shop: { id: 's1', name: 'Shop' } }),
    );
    const me = await client().me();
    expect(me.shop.id).toBe('s1');
    expect(api.requests.length).toBe(3);
    expect(sleeps.length).toBe(2);
    expect(sleeps[0]).toBeGreaterThanOrEqual(250);
    expect(sleeps[0]).toBeLessThanOrEqual(500);
    expect(sleeps[1]).toBeGreaterThanOrEqual(500);
    expect(sleeps[1]).toBeLessThanOrEqual(1000);
  });

  it('gives up after maxRetries and throws the last error', async () => {
    api.on('GET /api/v1/me', () => ({ status: 502, body: '<html>bad gateway</html>' }));
    const err = await client({ maxRetries: 2 })
      .me()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SlipcheckApiError);
    expect((err as SlipcheckApiError).statusCode).toBe(502);
    expect((err as SlipcheckApiError).code).toBe('SERVER_ERROR');
    expect(api.requests.length).toBe(3);
  });

  it('does not wait for a Retry-After longer than the cap; the 429 reaches the caller', async () => {
    api.on('GET /api/v1/quota', (req) => ({
      status: 429,
      headers: { 'retry-after': '120' },
      body: errorBody(429, 'Too Many Requests', 'Slow down', req.path),
    }));
    const err = (await client()
      .quota()
      .catch((e: unknown) => e)) as SlipcheckApiError;
    expect(err.code).toBe('RATE_LIMITED');
    expect(err.retryAfterSeconds).toBe(120);
    expect(api.requests.length).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('never retries verify after a 500 answer', async () => {
    api.on('POST /api/v1/verify', (req) => ({ status: 500, body: errorBody(500, 'Internal Server Error', 'Internal error', req.path) }));
    const err = (await client()
      .verify(IMAGE)
      .catch((e: unknown) => e)) as SlipcheckApiError;
    expect(err).toBeInstanceOf(SlipcheckApiError);
    expect(err.statusCode).toBe(500);
    expect(err.requestId).toBe('req_500');
    expect(api.requests.length).toBe(1);
  });

  it('retries verify on 429 and 503 (nothing was checked) with the same bytes', async () => {
    api.on('POST /api/v1/verify', (req, nth) => {
      if (nth === 0)
        return { status: 429, headers: { 'retry-after': '1' }, body: errorBody(429, 'Too Many Requests', 'Slow down', req.path) };
      if (nth === 1) return { status: 503, body: errorBody(503, 'Service Unavailable', 'Try again', req.path) };
      return ok(verifyData(), verifyMeta);
    });
    const result = await client().verify(IMAGE, { clientRef: 'order-42' });
    expect(result.id).toBe('txn_1');
    expect(api.requests.length).toBe(3);
    for (const r of api.requests) expect(r.body.equals(IMAGE)).toBe(true);
    expect(sleeps[0]).toBe(1000);
  });

  it('surfaces a verify timeout with safe-retry advice and does not retry it', async () => {
    api.on('POST /api/v1/verify', () => ({ hang: true }));
    const err = (await client({ timeoutMs: 150 })
      .verify(IMAGE)
      .catch((e: unknown) => e)) as SlipcheckConnectionError;
    expect(err).toBeInstanceOf(SlipcheckConnectionError);
    expect(err.code).toBe('TIMEOUT');
    expect(err.mayHaveBeenProcessed).toBe(true);
    expect(err.message).toMatch(/Re-sending the same image is safe/);
    expect(err.message).toMatch(/listTransactions/);
    expect(api.requests.length).toBe(1);
  });

  it('retries a GET timeout', async () => {
    api.on('GET /api/v1/quota', (_req, nth) => (nth === 0 ? { hang: true } : ok({ used: 1 })));
    // The first attempt hangs whatever the limit; the retry's new connection must fit in it, on a loaded full run too.
    await expect(client({ timeoutMs: 2_000 }).quota()).resolves.toEqual({ used: 1 });
    expect(api.requests.length).toBe(2);
  });

  it('retries verify when the connection is refused (the request never left)', async () => {
    const closed = await startFakeApi();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const err = (await client({ baseUrl, maxRetries: 2 })
      .verify(IMAGE)
      .catch((e: unknown) => e)) as SlipcheckConnectionError;
    expect(err).toBeInstanceOf(SlipcheckConnectionError);
    expect(err.code).toBe('NETWORK_ERROR');
    expect(err.mayHaveBeenProcessed).toBe(false);
    expect(sleeps.length).toBe(2);
  });

  it('does not retry when the caller aborts', async () => {
    api.on('GET /api/v1/me', () => ({ hang: true }));
    const controller = new AbortController();
    const pending = client().me({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(pending).rejects.toThrow('caller gave up');
    expect(api.requests.length).toBe(1);
  });

  // The README: "An aborted signal rejects with its reason and is never retried". An abort that came
  // while the client waited out a Retry-After (or a backoff) used to be noticed only by the next
  // attempt's fetch, which had already been sent: the slip was checked after the caller gave up.
  it('stops waiting at once and sends nothing more when the caller aborts during a Retry-After wait', async () => {
    api.on('POST /api/v1/verify', (req, nth) =>
      nth === 0
        ? { status: 503, headers: { 'retry-after': '2' }, body: errorBody(503, 'Service Unavailable', 'Try again', req.path) }
        : ok(verifyData(), verifyMeta),
    );
    const controller = new AbortController();
    // A real sleep (the default), so the wait can be cut short.
    const c = createSlipcheckClient({ apiKey: API_KEY, baseUrl: api.baseUrl });
    const started = Date.now();
    const pending = c.verify(IMAGE, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 150);
    await expect(pending).rejects.toThrow('caller gave up');
    expect(Date.now() - started).toBeLessThan(1_500);
    // Let the 2 s Retry-After pass: no second verify may leave after the abort.
    await new Promise((r) => setTimeout(r, 2_300));
    expect(api.requests.length).toBe(1);
  });

  it('leaves no abort listener on a signal shared by many calls once their retry waits are over', async () => {
    api.on('GET /api/v1/quota', (req, nth) =>
      nth % 2 === 0
        ? { status: 503, headers: { 'retry-after': '0' }, body: errorBody(503, 'Service Unavailable', 'Try again', req.path) }
        : ok({ used: 1 }),
    );
    const shutdown = new AbortController(); // an app-wide signal passed to every call
    const c = createSlipcheckClient({ apiKey: API_KEY, baseUrl: api.baseUrl });
    for (let i = 0; i < 12; i++) await c.quota({ signal: shutdown.signal });
    expect(api.requests.length).toBe(24);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  it('sends nothing more when the caller aborts during a backoff after a refused connection', async () => {
    const closed = await startFakeApi();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const controller = new AbortController();
    const attempts: number[] = [];
    const c = createSlipcheckClient({
      apiKey: API_KEY,
      baseUrl,
      maxRetries: 3,
      fetch: (input, init) => {
        attempts.push(Date.now());
        return fetch(input, init);
      },
      // The caller gives up while the client waits before its second attempt.
      sleep: async () => {
        controller.abort(new Error('caller gave up'));
      },
    });
    await expect(c.verify(IMAGE, { signal: controller.signal })).rejects.toThrow('caller gave up');
    expect(attempts.length).toBe(1);
  });
});

describe('error mapping', () => {
  it('maps a 402 quota error with code, quota, requestId and quota headers', async () => {
    api.on('POST /api/v1/verify', (req) => ({
      status: 402,
      headers: { 'x-service-quota-remaining': '0', 'x-service-quota-used': '1000' },
      body: errorBody(402, 'Payment Required', 'Monthly quota exhausted', req.path, {
        code: 'QUOTA_EXCEEDED',
        quota: { used: 1000, limit: 1000, remaining: 0 },
        reason: 'MONTHLY_QUOTA',
      }),
    }));
    const c = client();
    const err = (await c.verify(IMAGE).catch((e: unknown) => e)) as SlipcheckApiError;
    expect(err.reason).toBe('MONTHLY_QUOTA');
    expect(err.meaning('en')).toBe(ERROR_CODES.QUOTA_EXCEEDED.en);
    expect(err.meaning('th')).toMatch(/[\u0E00-\u0E7F]/);
    expect(err).toBeInstanceOf(SlipcheckApiError);
    expect(err).toMatchObject({
      statusCode: 402,
      code: 'QUOTA_EXCEEDED',
      message: 'Monthly quota exhausted',
      requestId: 'req_402',
      quota: { used: 1000, limit: 1000, remaining: 0 },
      quotaHeaders: { limit: 1000, used: 1000, remaining: 0, resetDays: 12 },
    });
    expect(c.lastQuota?.remaining).toBe(0);
    expect(api.requests.length).toBe(1);
    expect(err.firstUse).toBeNull();
  });

  it("reads a 402's firstUse: the picture re-uses a transfer this shop already credited", async () => {
    const firstUse = { transactionId: 'txn_01JD', amount: 610.25, createdAt: '2026-11-27T10:03:00.000Z' };
    api.on('POST /api/v1/verify', (req) => ({
      status: 402,
      body: errorBody(402, 'Payment Required', 'Monthly quota exhausted. This slip was already verified', req.path, {
        code: 'QUOTA_EXCEEDED',
        quota: { used: 1000, limit: 1000, remaining: 0 },
        reason: 'MONTHLY_QUOTA',
        firstUse,
      }),
    }));
    const err = (await client()
      .verify(IMAGE)
      .catch((e: unknown) => e)) as SlipcheckApiError;
    expect(err.firstUse).toEqual(firstUse);
  });

  it('derives a code when the body has none (403 scope, 401, 404)', async () => {
    api.on('GET /api/v1/me', (req) => ({ status: 403, body: errorBody(403, 'Forbidden', 'API key missing scope(s): read', req.path) }));
    api.on('GET /api/v1/quota', (req) => ({ status: 401, body: errorBody(401, 'Unauthorized', 'Invalid API key', req.path) }));
    api.on('GET /api/v1/transactions/:id', (req) => ({
      status: 404,
      body: errorBody(404, 'Not Found', 'Transaction not found', req.path),
    }));
    const c = client();
    await expect(c.me()).rejects.toMatchObject({ statusCode: 403, code: 'FORBIDDEN', message: 'API key missing scope(s): read' });
    await expect(c.quota()).rejects.toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED' });
    await expect(c.getTransaction('txn/../x')).rejects.toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
    expect(api.requests.at(-1)?.path).toBe('/api/v1/transactions/txn%2F..%2Fx');
    expect(api.requests.length).toBe(3); // 4xx other than 429 are never retried
    const forbidden = (await c.me().catch((e: unknown) => e)) as SlipcheckApiError;
    expect(forbidden.reason).toBeNull();
    // FORBIDDEN is the SDK's own fallback, not a service code: the server's sentence stands.
    expect(forbidden.meaning('en')).toBe('API key missing scope(s): read');
  });

  // The catalogue's UNAUTHORIZED words are the dashboard's ("Your session has ended. Please sign in
  // again."); from the API it means the key, and the README shows err.meaning('th') to shop staff.
  it('explains a 401 UNAUTHORIZED from the API as a wrong or revoked API key, not a session to sign in again', async () => {
    api.on('GET /api/v1/quota', (req) => ({
      status: 401,
      body: errorBody(401, 'Unauthorized', 'Missing, invalid or revoked API key', req.path, { code: 'UNAUTHORIZED' }),
    }));
    const err = (await client()
      .quota()
      .catch((e: unknown) => e)) as SlipcheckApiError;
    expect(err.code).toBe('UNAUTHORIZED');
    expect(err.meaning('en')).toMatch(/API key/);
    expect(err.meaning('en')).not.toMatch(/sign in|session/i);
    expect(err.meaning('th')).toMatch(/API/);
    expect(err.meaning('th')).not.toBe(ERROR_CODES.UNAUTHORIZED.th);
  });

  it('keeps a body code such as PLAN_API_ACCESS_REQUIRED', async () => {
    api.on('GET /api/v1/me', (req) => ({
      status: 403,
      body: errorBody(403, 'Forbidden', 'Plan has no API access', req.path, { code: 'PLAN_API_ACCESS_REQUIRED' }),
    }));
    await expect(client().me()).rejects.toMatchObject({ code: 'PLAN_API_ACCESS_REQUIRED' });
  });

  it('treats a 200 without a success envelope as an error', async () => {
    api.on('GET /api/v1/me', () => ({ status: 200, body: '<html>captive portal</html>' }));
    await expect(client().me()).rejects.toMatchObject({ code: 'INVALID_RESPONSE', statusCode: 200 });
  });
});

describe('verify', () => {
  it('uploads raw bytes with query parameters and exposes meta and quota headers', async () => {
    api.on('POST /api/v1/verify', () => ok(verifyData(), verifyMeta));
    const c = client();
    const result = await c.verify(IMAGE, { amount: 1250.5, clientRef: 'order-42' });
    const req = api.requests[0];
    expect(req.headers['content-type']).toBe('application/octet-stream');
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.query.get('amount')).toBe('1250.5');
    expect(req.query.get('clientRef')).toBe('order-42');
    expect(req.body.equals(IMAGE)).toBe(true);
    expect(result).toMatchObject({ id: 'txn_1', verified: true, duplicate: false, clientRef: 'order-42', meta: verifyMeta });
    expect(result.quota).toEqual({ used: 121, limit: 1000, remaining: 879 });
    expect(result.quotaHeaders).toEqual({ limit: 1000, used: 120, remaining: 880, resetDays: 12 });
    expect(c.lastQuota).toEqual(result.quotaHeaders);
    expect(Number(QUOTA_HEADERS['x-service-quota-limit'])).toBe(result.quotaHeaders?.limit);
  });

  it('sends amount as the exact decimal string: strings as written, numbers as printed, never rounded (issue 19)', async () => {
    api.on('POST /api/v1/verify', () => ok(verifyData(), verifyMeta));
    const c = client();
    for (const [input, sent] of [
      ['8.20', '8.20'],
      [8.2, '8.2'],
      [19.99, '19.99'],
      [0.07, '0.07'],
      ['1234.56', '1234.56'],
      [1234.56, '1234.56'],
      [99999999.99, '99999999.99'],
      [300, '300'],
    ] as const) {
      api.requests.length = 0;
      await c.verify(IMAGE, { amount: input });
      expect(api.requests[0]!.query.get('amount'), String(input)).toBe(sent);
    }
    api.requests.length = 0;
    for (const bad of ['8.205', '1e3', '-1', ' 8.20', '8,20', '', 0.1 + 0.2, 8.205, -1, 1e21, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(c.verify(IMAGE, { amount: bad }), String(bad)).rejects.toBeInstanceOf(RangeError);
    }
    expect(api.requests.length).toBe(0); // refused before anything was sent
  });

  it('uploads a Node readable stream and a web ReadableStream byte for byte', async () => {
    api.on('POST /api/v1/verify', () => ok(verifyData(), verifyMeta));
    const c = client();
    const chunks = [IMAGE.subarray(0, 3), IMAGE.subarray(3, 4000), IMAGE.subarray(4000)];
    await c.verify(Readable.from(chunks));
    await c.verify(Readable.toWeb(Readable.from(chunks)) as ReadableStream<Uint8Array>);
    expect(api.requests.length).toBe(2);
    for (const r of api.requests) {
      expect(r.body.equals(IMAGE)).toBe(true);
      expect(r.headers['content-length']).toBe(String(IMAGE.length));
    }
  });

  it('refuses an oversized stream before sending anything', async () => {
    await expect(client({ maxImageBytes: 100 }).verify(Readable.from([IMAGE]))).rejects.toBeInstanceOf(RangeError);
    expect(api.requests.length).toBe(0);
  });

  it('fills quota from the headers when the record has none', async () => {
    const data = verifyData();
    delete data.quota;
    api.on('POST /api/v1/verify', () => ok(data, verifyMeta));
    const result = await client().verify(IMAGE);
    expect(result.quota).toEqual({ used: 120, limit: 1000, remaining: 880 });
  });
});
