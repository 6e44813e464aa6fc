import { describe, expect, it } from 'vitest';
import { createSlipOkChecker } from '../../src/modules/checker/slipok-checker.js';
import { fakeUpstreamForFile, type Reply } from './fake-upstream.js';

const q = { payload: '0041000600000101030060217010092101507665143', bankCode: '006', transRef: '010092101507665143' };
const data = {
  success: true,
  message: '✅',
  receivingBank: '006',
  sendingBank: '004',
  transRef: '010092101507665143',
  transDate: '20200401',
  transTime: '10:15:07',
  transTimestamp: '2020-04-01T03:15:07.000Z',
  amount: 1000,
  sender: {
    displayName: 'นาย กสิกร ร',
    name: 'Mr. Kasikorn R',
    proxy: { type: null, value: null },
    account: { type: 'BANKAC', value: 'xxx-x-x1234-x' },
  },
  receiver: {
    displayName: 'นาย กรุงไทย ม',
    name: 'Mr. Krungthai M',
    proxy: { type: 'MSISDN', value: 'xxx-xxx-5678' },
    account: { type: 'BANKAC', value: 'xxx-x-x9999-x' },
  },
};

const f = fakeUpstreamForFile({ status: 200, body: { success: true, data } });
const checker = () => createSlipOkChecker({ url: `${f.up.url}/api/line/apikey/12345`, key: 'ok_key', fetch: f.http.fetch });

describe('SlipOK adapter', () => {
  it('posts {data: payload} with x-authorization and maps the slip', async () => {
    f.reply = { status: 200, body: { success: true, data } };
    const r = await checker().check(q);
    expect(f.up.requests.at(-1)).toMatchObject({ url: '/api/line/apikey/12345', body: { data: q.payload } });
    expect(f.up.requests.at(-1)!.headers['x-authorization']).toBe('ok_key');
    expect(r).toMatchObject({
      kind: 'FOUND',
      slip: {
        transRef: '010092101507665143',
        amount: 1000,
        transDate: '2020-04-01T03:15:07.000Z',
        sendingBankCode: '004',
        receivingBankCode: '006',
        receiver: {
          name: 'นาย กรุงไทย ม',
          nameEn: 'Mr. Krungthai M',
          account: 'xxx-x-x9999-x',
          proxy: { type: 'PHONE', value: 'xxx-xxx-5678' },
        },
        sender: { proxy: null },
      },
    });
  });

  it('falls back to transDate + transTime in Bangkok time', async () => {
    f.reply = { status: 200, body: { success: true, data: { ...data, transTimestamp: undefined } } };
    const r = await checker().check(q);
    expect(r.kind === 'FOUND' && r.slip.transDate).toBe('2020-04-01T03:15:07.000Z');
  });

  it.each<[string, Reply, unknown]>([
    [
      '1010 delayed slip',
      { status: 400, body: { code: 1010, message: 'wait', data: { delay: 3 } } },
      { kind: 'PENDING', retryAfterSeconds: 180 },
    ],
    ['1011 no such transaction', { status: 400, body: { code: 1011, message: 'x' } }, { kind: 'NOT_FOUND' }],
    // "not a QR for payment verification": what this provider cannot check, never forged
    ['1008 not a payment QR', { status: 400, body: { code: 1008, message: 'x' } }, { kind: 'UNSUPPORTED' }],
    ['1012 repeated slip still carries the data', { status: 400, body: { code: 1012, message: 'dup', data } }, { kind: 'FOUND' }],
    // bank data down ~15 minutes, no quota used: fail over, no immediate re-send
    [
      '1009 bank down',
      { status: 400, body: { code: 1009, message: 'x' } },
      { kind: 'UNAVAILABLE', retryable: false, retryAfterSeconds: 900 },
    ],
    [
      'auth failure',
      { status: 401, body: { code: 1002, message: 'x' } },
      { kind: 'UNAVAILABLE', retryable: false, account: 'key_invalid' },
    ],
    ['500', { status: 500, body: 'oops' }, { kind: 'UNAVAILABLE', retryable: true }],
  ])('%s', async (_l, r, want) => {
    f.reply = r;
    expect(await checker().check(q)).toMatchObject(want as object);
  });
});
