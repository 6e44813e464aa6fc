// Every documented answer of both providers, through a fake provider on loopback: what the adapter
// makes of it, whether the same provider is asked again (never for an account error or SlipOK 1009),
// and whether the chain moves on to the next provider.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckerFromConfig } from '../../src/modules/checker/checker-factory.js';
import { createEasySlipChecker } from '../../src/modules/checker/easyslip-checker.js';
import { createSlipOkChecker } from '../../src/modules/checker/slipok-checker.js';
import { createKeepAliveFetch } from '../../src/modules/checker/checker-http.js';
import { startFakeUpstream, type FakeUpstream, type Reply } from './fake-upstream.js';
import {
  EASYSLIP_ERROR_TABLE,
  EASYSLIP_KEY,
  SLIPOK_BRANCH_PATH,
  SLIPOK_ERROR_TABLE,
  SLIPOK_KEY,
  easySlipBankSuccess,
  easySlipError,
  slipOkSuccess,
} from './provider-fixtures.js';

const q = { payload: '0041000600000101030040220014242082547BPM049885102TH9104E3A5', bankCode: '004', transRef: '014242082547BPM04988' };
const sandboxFound = {
  status: 'FOUND',
  data: {
    transRef: q.transRef,
    sendingBank: '004',
    receivingBank: '004',
    amount: 10,
    transDate: '2026-01-01T07:00:00+07:00',
    sender: { name: 'a', account: 'xxx' },
    receiver: { name: 'b', account: 'xxx-x-x6660-x', proxy: null },
  },
};

let reply: Reply = { status: 200, body: {} };
let provider: FakeUpstream;
let next: FakeUpstream;
const http = createKeepAliveFetch();
beforeAll(async () => {
  provider = await startFakeUpstream(() => reply);
  next = await startFakeUpstream(() => ({ status: 200, body: sandboxFound }));
});
afterAll(async () => {
  await provider.close();
  await next.close();
  await http.close();
});

function chainOf(id: 'easyslip' | 'slipok') {
  const url = id === 'easyslip' ? provider.url : `${provider.url}${SLIPOK_BRANCH_PATH}`;
  return createCheckerFromConfig({
    checker: `${id},sandbox`,
    checkerUrl: [url, next.url],
    checkerKey: [id === 'easyslip' ? EASYSLIP_KEY : SLIPOK_KEY, ''],
    timeoutMs: 2_000,
    maxAttempts: 3,
    fetch: http.fetch,
    deps: { sleep: async () => {}, random: () => 0 },
  });
}

describe('EasySlip v2 error table', () => {
  it.each(EASYSLIP_ERROR_TABLE)('$status $code', async ({ status, code, want, next: movesOn }) => {
    reply = easySlipError(status, code);
    const alone = await createEasySlipChecker({ url: provider.url, key: EASYSLIP_KEY, fetch: http.fetch }).check(q);
    expect(alone).toMatchObject(want);
    if (alone.kind === 'UNAVAILABLE' && alone.account) expect(alone.providerCode).toBe(code);

    const before = { p: provider.requests.length, n: next.requests.length };
    const c = chainOf('easyslip');
    const r = await c.check(q);
    const asked = provider.requests.length - before.p;
    // only a 5xx is sent again to the same provider; account errors and the rest fail over at once
    expect(asked).toBe(want.retryable === true ? 3 : 1);
    expect(next.requests.length - before.n).toBe(movesOn ? 1 : 0);
    expect(r.kind).toBe(movesOn ? 'FOUND' : want.kind);
    await c.close();
  });

  it('success maps rawSlip (and never asks the next provider)', async () => {
    reply = { status: 200, body: easySlipBankSuccess() };
    const before = next.requests.length;
    const c = chainOf('easyslip');
    expect(await c.check(q)).toMatchObject({ kind: 'FOUND', slip: { transRef: q.transRef, amount: 1000 } });
    expect(next.requests.length).toBe(before);
    await c.close();
  });
});

describe('SlipOK error code table', () => {
  it.each(SLIPOK_ERROR_TABLE)('$code $note', async ({ reply: r0, want, next: movesOn }) => {
    reply = r0;
    const alone = await createSlipOkChecker({ url: `${provider.url}${SLIPOK_BRANCH_PATH}`, key: SLIPOK_KEY, fetch: http.fetch }).check(q);
    expect(alone).toMatchObject(want);

    const before = { p: provider.requests.length, n: next.requests.length };
    const c = chainOf('slipok');
    const r = await c.check(q);
    // no SlipOK code is re-sent at once: 1009 says wait ~15 minutes, the rest cannot change
    expect(provider.requests.length - before.p).toBe(1);
    expect(next.requests.length - before.n).toBe(movesOn ? 1 : 0);
    expect(r.kind).toBe(movesOn ? 'FOUND' : want.kind);
    await c.close();
  });

  it('1008 is never NOT_FOUND (FRAUD): the provider cannot check this QR', async () => {
    reply = SLIPOK_ERROR_TABLE.find((e) => e.code === 1008)!.reply;
    const c = createCheckerFromConfig({
      checker: 'slipok',
      checkerUrl: `${provider.url}${SLIPOK_BRANCH_PATH}`,
      checkerKey: SLIPOK_KEY,
      timeoutMs: 2_000,
      fetch: http.fetch,
    });
    expect((await c.check(q)).kind).toBe('UNSUPPORTED');
    await c.close();
  });

  it('success: {data: payload} with x-authorization', async () => {
    reply = slipOkSuccess(q.transRef);
    const c = chainOf('slipok');
    expect(await c.check(q)).toMatchObject({ kind: 'FOUND', slip: { transRef: q.transRef, sendingBankCode: '006' } });
    expect(provider.requests.at(-1)).toMatchObject({ url: SLIPOK_BRANCH_PATH, body: { data: q.payload } });
    expect(provider.requests.at(-1)!.headers['x-authorization']).toBe(SLIPOK_KEY);
    await c.close();
  });
});

describe('timeouts prefer failover', () => {
  it('with a next provider, a timed-out attempt is not sent again to the same provider', async () => {
    reply = { status: 200, hang: true };
    const before = { p: provider.requests.length, n: next.requests.length };
    const c = createCheckerFromConfig({
      checker: 'slipok,sandbox',
      checkerUrl: [`${provider.url}${SLIPOK_BRANCH_PATH}`, next.url],
      checkerKey: [SLIPOK_KEY, ''],
      // The first provider hangs whatever the limit; the next one must answer within it on a loaded full run too.
      timeoutMs: 2_000,
      deadlineMs: 10_000,
      maxAttempts: 3,
      fetch: http.fetch,
    });
    expect((await c.check(q)).kind).toBe('FOUND');
    expect(provider.requests.length - before.p).toBe(1);
    expect(next.requests.length - before.n).toBe(1);
    await c.close();
  });
});
