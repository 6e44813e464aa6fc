import { describe, expect, it } from 'vitest';
import { createSandboxChecker } from '../../src/modules/checker/sandbox-checker.js';
import { fakeUpstreamForFile, startFakeUpstream, type Reply } from './fake-upstream.js';

const q = { payload: '004600000100060000010103004022412345678901234567895102TH9104ABCD', bankCode: '004', transRef: '0123456789ABCdef' };
const found = {
  status: 'FOUND',
  data: {
    transRef: '0123456789ABCdef',
    sendingBank: '004',
    receivingBank: '014',
    amount: 1250.5,
    transDate: '2026-03-01T09:15:00+07:00',
    sender: { name: 'นาย ผู้โอน ต', nameEn: 'MR. PHU T', account: 'xxx-x-x1234-x' },
    receiver: { name: 'บจก. ร้านดี', account: null, proxy: { type: 'MSISDN', value: 'xxx-xxx-5678' } },
  },
};

const f = fakeUpstreamForFile({ status: 200, body: found });

describe('sandbox checker adapter', () => {
  it('maps FOUND, converts +07:00 to UTC and posts {payload} with the bearer key', async () => {
    f.reply = { status: 200, body: found };
    const c = createSandboxChecker({ url: f.up.url + '/', key: 'sbx_key', fetch: f.http.fetch });
    const r = await c.check(q);
    expect(r).toEqual({
      kind: 'FOUND',
      slip: {
        transRef: '0123456789ABCdef',
        amount: 1250.5,
        transDate: '2026-03-01T02:15:00.000Z',
        sendingBankCode: '004',
        receivingBankCode: '014',
        sender: { name: 'นาย ผู้โอน ต', nameEn: 'MR. PHU T', account: 'xxx-x-x1234-x', proxy: null, bankCode: '004' },
        receiver: { name: 'บจก. ร้านดี', nameEn: null, account: null, proxy: { type: 'PHONE', value: 'xxx-xxx-5678' }, bankCode: '014' },
      },
    });
    expect(f.up.requests[0].url).toBe('/api/checker/verify');
    expect(f.up.requests[0].method).toBe('POST');
    expect(f.up.requests[0].headers.authorization).toBe('Bearer sbx_key');
    expect(f.up.requests[0].body).toEqual({ payload: q.payload });
  });

  it('sends no Authorization header without a key', async () => {
    f.reply = { status: 404, body: { status: 'NOT_FOUND' } };
    const c = createSandboxChecker({ url: f.up.url, fetch: f.http.fetch });
    expect(await c.check(q)).toEqual({ kind: 'NOT_FOUND' });
    expect(f.up.requests[0].headers.authorization).toBeUndefined();
  });

  it.each<[string, Reply, unknown]>([
    ['BAD_PAYLOAD is a forged QR', { status: 400, body: { status: 'BAD_PAYLOAD' } }, { kind: 'NOT_FOUND' }],
    ['PENDING', { status: 409, body: { status: 'PENDING', retryAfterSeconds: 90 } }, { kind: 'PENDING', retryAfterSeconds: 90 }],
    ['PENDING without a hint', { status: 409, body: { status: 'PENDING' } }, { kind: 'PENDING', retryAfterSeconds: 60 }],
  ])('%s', async (_l, r, want) => {
    f.reply = r;
    const c = createSandboxChecker({ url: f.up.url, fetch: f.http.fetch });
    expect(await c.check(q)).toEqual(want);
  });

  it.each<[string, Reply, boolean]>([
    ['401', { status: 401, body: { status: 'UNAUTHORIZED' } }, false],
    ['500', { status: 500, body: { error: 'boom' } }, true],
    ['503 html', { status: 503, body: '<html>down</html>' }, true],
    ['a 404 without the status field is a wrong URL, not fraud', { status: 404, body: 'Not Found' }, false],
    ['malformed FOUND', { status: 200, body: { status: 'FOUND', data: { amount: 'x' } } }, false],
    ['200 that is not JSON', { status: 200, body: 'ok' }, false],
  ])('%s -> UNAVAILABLE (retryable=%s)', async (_l, r, retryable) => {
    f.reply = r;
    const c = createSandboxChecker({ url: f.up.url, fetch: f.http.fetch });
    const res = await c.check(q);
    expect(res.kind).toBe('UNAVAILABLE');
    expect(res.kind === 'UNAVAILABLE' && res.retryable).toBe(retryable);
  });

  it('connection refused -> retryable UNAVAILABLE', async () => {
    const dead = await startFakeUpstream(() => ({ status: 200 }));
    const url = dead.url;
    await dead.close();
    const c = createSandboxChecker({ url, fetch: f.http.fetch });
    const res = await c.check(q);
    expect(res).toMatchObject({ kind: 'UNAVAILABLE', retryable: true });
  });

  it('an aborted signal ends the request', async () => {
    f.reply = { status: 200, hang: true };
    const c = createSandboxChecker({ url: f.up.url, fetch: f.http.fetch });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 30);
    const res = await c.check(q, { signal: ac.signal });
    expect(res.kind).toBe('UNAVAILABLE');
  });
});
