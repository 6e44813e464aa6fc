import { describe, expect, it } from 'vitest';
import { createEasySlipChecker } from '../../src/modules/checker/easyslip-checker.js';
import { fakeUpstreamForFile, type Reply } from './fake-upstream.js';
import { easySlipBankSuccess, easySlipTrueWalletSuccess } from './provider-fixtures.js';

const q = { payload: '0041000600000101030040220014242082547BPM049885102TH9104E3A5', bankCode: '004', transRef: '014242082547BPM04988' };

// The documented v2 answer (provider-fixtures.ts), for a transfer into a GSB account that also shows its PromptPay proxy.
const success = easySlipBankSuccess(q.transRef, {
  receiver: {
    bank: { id: '030', name: 'ธนาคารออมสิน', short: 'GSB' },
    account: {
      name: { th: 'นาย ร้านค้า ด', en: 'MR. RANKHA D' },
      bank: { type: 'BANKAC', account: '0200xxxx5678' },
      proxy: { type: 'MSISDN', account: '081-xxx-5678' },
    },
  },
});
const err = (status: number, code: string, headers?: Record<string, string>): Reply => ({
  status,
  headers,
  body: { success: false, error: { code, message: 'x' } },
});

const f = fakeUpstreamForFile({ status: 200, body: success });
const checker = () => createEasySlipChecker({ url: f.up.url, key: 'es_key', fetch: f.http.fetch });

describe('EasySlip v2 adapter', () => {
  it('posts {payload} to /v2/verify/bank with the bearer key and maps rawSlip', async () => {
    f.reply = { status: 200, body: success };
    const r = await checker().check(q);
    expect(f.up.requests[0]).toMatchObject({ method: 'POST', url: '/v2/verify/bank', body: { payload: q.payload } });
    expect(f.up.requests[0].headers.authorization).toBe('Bearer es_key');
    expect(r).toEqual({
      kind: 'FOUND',
      slip: {
        transRef: '014242082547BPM04988',
        amount: 1000,
        transDate: '2026-01-01T16:30:00.000Z',
        sendingBankCode: '004',
        receivingBankCode: '030',
        sender: { name: 'นาย อีซี่ ส', nameEn: 'MR. EASY S', account: 'xxx-x-x1234-x', proxy: null, bankCode: '004' },
        receiver: {
          name: 'นาย ร้านค้า ด',
          nameEn: 'MR. RANKHA D',
          account: '0200xxxx5678',
          proxy: { type: 'PHONE', value: '081-xxx-5678' },
          bankCode: '030',
        },
      },
    });
  });

  it('a PromptPay receiver without a bank account keeps only the proxy', async () => {
    const body = structuredClone(success);
    body.data.rawSlip.receiver.account = { name: { th: 'ร้าน', en: '' }, proxy: { type: 'EWALLETID', account: 'xxxxxxxxxxx4567' } } as never;
    f.reply = { status: 200, body };
    const r = await checker().check(q);
    expect(r.kind === 'FOUND' && r.slip.receiver).toMatchObject({ account: null, proxy: { type: 'EWALLET', value: 'xxxxxxxxxxx4567' } });
  });

  it('404 SLIP_NOT_FOUND -> NOT_FOUND', async () => {
    f.reply = err(404, 'SLIP_NOT_FOUND');
    expect(await checker().check(q)).toEqual({ kind: 'NOT_FOUND' });
  });

  it('SLIP_PENDING -> PENDING, honouring Retry-After', async () => {
    f.reply = err(404, 'SLIP_PENDING', { 'retry-after': '120' });
    expect(await checker().check(q)).toEqual({ kind: 'PENDING', retryAfterSeconds: 120 });
    f.reply = err(404, 'SLIP_PENDING');
    expect(await checker().check(q)).toEqual({ kind: 'PENDING', retryAfterSeconds: 60 });
  });

  it.each<[string, Reply, boolean]>([
    ['403 QUOTA_EXCEEDED', err(403, 'QUOTA_EXCEEDED'), false],
    ['401 INVALID_API_KEY', err(401, 'INVALID_API_KEY'), false],
    ['429 rate limited', err(429, 'RATE_LIMITED', { 'retry-after': '5' }), false],
    ['400 VALIDATION_ERROR', err(400, 'VALIDATION_ERROR'), false],
    ['404 NOT_FOUND (wrong endpoint) is not fraud', err(404, 'NOT_FOUND'), false],
    ['500 API_SERVER_ERROR', err(500, 'API_SERVER_ERROR'), true],
    ['502 from a proxy, no JSON', { status: 502, body: 'Bad Gateway' }, true],
    ['200 without rawSlip', { status: 200, body: { success: true, data: {} } }, false],
  ])('%s -> UNAVAILABLE (retryable=%s)', async (_l, r, retryable) => {
    f.reply = r;
    const res = await checker().check(q);
    expect(res).toMatchObject({ kind: 'UNAVAILABLE', retryable });
  });
});

describe('EasySlip v2 TrueMoney (document.easyslip.com/en/v2/verify/truewallet/image)', () => {
  const wallet = { ...q, kind: 'TRUEMONEY' as const, bankCode: 'TRUEMONEY', transRef: '50012345678901' };
  const img = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('SLIP-IMAGE-BYTES')]);

  it('posts the image as multipart field `image` to /v2/verify/truewallet and maps the wallet slip', async () => {
    f.reply = { status: 200, body: easySlipTrueWalletSuccess('50012345678901') };
    const r = await checker().check({ ...wallet, image: img });
    const sent = f.up.requests.at(-1)!;
    expect(sent.url).toBe('/v2/verify/truewallet');
    expect(sent.headers.authorization).toBe('Bearer es_key');
    expect(String(sent.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    expect(String(sent.body)).toMatch(/Content-Disposition: form-data; name="image"; filename="slip.jpg"\r\nContent-Type: image\/jpeg/);
    expect(String(sent.body)).toContain('SLIP-IMAGE-BYTES');
    expect(r).toMatchObject({
      kind: 'FOUND',
      slip: {
        transRef: '50012345678901',
        amount: 250,
        transDate: '2026-01-01T03:00:00.000Z',
        sendingBankCode: 'TRUEMONEY',
        receiver: { proxy: { type: 'PHONE', value: '081-xxx-6609' } },
      },
    });
    // the image never travels in a result or a reason
    expect(JSON.stringify(r)).not.toContain('SLIP-IMAGE-BYTES');
  });

  it('without the image, or over the 4 MB limit, the provider cannot check it: UNSUPPORTED without a call', async () => {
    const before = f.up.requests.length;
    expect((await checker().check(wallet)).kind).toBe('UNSUPPORTED');
    expect((await checker().check({ ...wallet, image: Buffer.alloc(4_194_305, 1) })).kind).toBe('UNSUPPORTED');
    expect(f.up.requests.length).toBe(before);
  });

  it('a bank answer without the sending bank or the sender falls back to the QR', async () => {
    const body = structuredClone(success) as { data: { rawSlip: Record<string, unknown> } };
    delete body.data.rawSlip.sender;
    f.reply = { status: 200, body };
    expect(await checker().check(q)).toMatchObject({
      kind: 'FOUND',
      slip: { sendingBankCode: '004', sender: { name: '', bankCode: '004' } },
    });
  });
});
