// Every documented success shape of both providers, and the answers whose reading is a matter of
// doubt, through a fake provider on loopback (real HTTP, the adapters' keep-alive fetch). Each row
// names the page it comes from; packages/server/src/modules/checker/README.md has the same table in
// prose ("Provider answers: what slipcheck makes of them"). The error-code tables themselves are
// provider-error-tables.test.ts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEasySlipChecker } from '../../src/modules/checker/easyslip-checker.js';
import { createSlipOkChecker } from '../../src/modules/checker/slipok-checker.js';
import { satangFromAmount } from '../../src/lib/money.js';
import type { CheckerQuery, CheckerResult } from '../../src/modules/checker/checker-port.js';
import { fakeUpstreamForFile, type Reply } from './fake-upstream.js';
import { EASYSLIP_KEY, SLIPOK_BRANCH_PATH, SLIPOK_KEY, easySlipBankSuccess, easySlipError, slipOkData } from './provider-fixtures.js';

const ES_BANK = 'https://easyslip-document.cl1.easythunder.com/en/v2/verify/bank';
const ES_TYPES = 'https://document.easyslip.com/documents/verify/bank/base64';
const ES_WALLET = 'https://document.easyslip.com/en/v2/verify/truewallet/image';
const ES_WALLET_V1 = 'https://document.easyslip.com/documents/truemoney-wallet/verify/image';
const ES_ERRORS = 'https://easyslip-document.cl1.easythunder.com/en/reference/error-codes';
const OK_CHECK = 'https://slipok.com/api-documentation/check-slip/';
const OK_SDK = 'https://github.com/PrakritManStudio/slipok-sdk/blob/main/src/types/index.ts';

const bankQ: CheckerQuery = {
  payload: '0041000600000101030040220014242082547BPM049885102TH9104E3A5',
  bankCode: '004',
  transRef: '014242082547BPM04988',
};
const walletQ: CheckerQuery = {
  payload: 'wallet-50012345678901',
  bankCode: 'TRUEMONEY',
  transRef: '50012345678901',
  kind: 'TRUEMONEY',
  image: Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('wallet-slip')]),
};

const f = fakeUpstreamForFile({ status: 200, body: {} });
// The process's zone must not decide how a provider date is read: run these in UTC like CI, then restore.
const tz = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'UTC';
});
afterAll(() => {
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
});
afterEach(() => {
  f.reply = { status: 200, body: {} };
});

const easyslip = () => createEasySlipChecker({ url: f.up.url, key: EASYSLIP_KEY, fetch: f.http.fetch });
const slipok = () => createSlipOkChecker({ url: `${f.up.url}${SLIPOK_BRANCH_PATH}`, key: SLIPOK_KEY, fetch: f.http.fetch });

/** EasySlip v2 bank answer with its rawSlip changed (RawSlip as in the documented type). */
const es = (raw: Record<string, unknown>): Reply => ({ status: 200, body: easySlipBankSuccess(bankQ.transRef, raw) });
const esReceiver = (account: Record<string, unknown>, bank: Record<string, unknown> = { id: '004', name: 'กสิกรไทย', short: 'KBANK' }) =>
  es({ receiver: { bank, account } });
/** SlipOK success with data fields changed. */
const ok = (over: Record<string, unknown>): Reply => ({ status: 200, body: { success: true, data: slipOkData(bankQ.transRef, over) } });
const okReceiver = (r: Record<string, unknown>) =>
  ok({
    receiver: {
      displayName: 'บจก. ร้านกาแฟ ทดสอบ',
      name: 'CAFE TEST CO',
      proxy: { type: null, value: null },
      account: { type: '', value: '' },
      ...r,
    },
  });

interface Row {
  name: string;
  doc: string;
  provider: 'easyslip' | 'slipok';
  q?: CheckerQuery;
  reply: Reply;
  /** toMatchObject on the result */
  want: Record<string, unknown>;
  /** the result must not be this kind (doubtful answers: never FOUND/NOT_FOUND) */
  never?: Array<CheckerResult['kind']>;
  /** the amount in satang the pipeline will read from the result */
  satang?: number;
}

const ROWS: Row[] = [
  // ---------------------------------------------------------------- EasySlip v2, bank slips
  {
    name: 'EasySlip: bank account receiver, masked account, names in Thai and English',
    doc: ES_BANK,
    provider: 'easyslip',
    reply: esReceiver({ name: { th: 'นาย ร้านค้า ด', en: 'MR. RANKHA D' }, bank: { type: 'BANKAC', account: 'xxx-x-x6660-9' } }),
    want: {
      kind: 'FOUND',
      slip: { receiver: { name: 'นาย ร้านค้า ด', nameEn: 'MR. RANKHA D', account: 'xxx-x-x6660-9', proxy: null, bankCode: '004' } },
    },
  },
  {
    name: 'EasySlip: amount with satang',
    doc: ES_TYPES,
    provider: 'easyslip',
    reply: es({ amount: { amount: 1500.5, local: { amount: 0, currency: '' } } }),
    want: { kind: 'FOUND' },
    satang: 150050,
  },
  {
    name: 'EasySlip: amount as a decimal string is read as its decimal text',
    doc: ES_TYPES,
    provider: 'easyslip',
    reply: es({ amount: { amount: '1234.56', local: {} } }),
    want: { kind: 'FOUND' },
    satang: 123456,
  },
  {
    name: 'EasySlip: PromptPay to a phone number (MSISDN)',
    doc: ES_TYPES,
    provider: 'easyslip',
    reply: esReceiver({ name: { th: 'นาย ร้านค้า ด' }, proxy: { type: 'MSISDN', account: '081-xxx-5678' } }),
    want: { kind: 'FOUND', slip: { receiver: { account: null, proxy: { type: 'PHONE', value: '081-xxx-5678' } } } },
  },
  {
    name: 'EasySlip: PromptPay to a national id (NATID)',
    doc: ES_TYPES,
    provider: 'easyslip',
    reply: esReceiver({ name: { th: 'นาย ร้านค้า ด' }, proxy: { type: 'NATID', account: 'x-xxxx-xxxxx-12-3' } }),
    want: { kind: 'FOUND', slip: { receiver: { account: null, proxy: { type: 'NATID', value: 'x-xxxx-xxxxx-12-3' } } } },
  },
  {
    name: 'EasySlip: PromptPay to an e-wallet id (EWALLETID)',
    doc: ES_TYPES,
    provider: 'easyslip',
    reply: esReceiver({ name: { th: 'ร้าน' }, proxy: { type: 'EWALLETID', account: 'xxxxxxxxxxx4567' } }),
    want: { kind: 'FOUND', slip: { receiver: { account: null, proxy: { type: 'EWALLET', value: 'xxxxxxxxxxx4567' } } } },
  },
  {
    name: 'EasySlip: PromptPay to an e-mail or a biller id',
    doc: ES_TYPES,
    provider: 'easyslip',
    reply: esReceiver({ name: { en: 'SHOP' }, proxy: { type: 'BILLERID', account: 'xxxxxxxx1234' } }),
    want: { kind: 'FOUND', slip: { receiver: { name: 'SHOP', nameEn: 'SHOP', proxy: { type: 'OTHER', value: 'xxxxxxxx1234' } } } },
  },
  {
    name: 'EasySlip: date with +07:00 is carried as UTC',
    doc: ES_TYPES,
    provider: 'easyslip',
    reply: es({ date: '2026-01-01T23:30:00+07:00' }),
    want: { kind: 'FOUND', slip: { transDate: '2026-01-01T16:30:00.000Z' } },
  },
  {
    name: 'EasySlip: ISO 8601 zone forms +0700 and +07, and a fraction past milliseconds',
    doc: ES_TYPES,
    provider: 'easyslip',
    reply: es({ date: '2026-01-01T23:30:00.123456+0700' }),
    want: { kind: 'FOUND', slip: { transDate: '2026-01-01T16:30:00.123Z' } },
  },
  {
    name: 'EasySlip: zone +07 (hours only)',
    doc: ES_TYPES,
    provider: 'easyslip',
    reply: es({ date: '2026-01-01T23:30+07' }),
    want: { kind: 'FOUND', slip: { transDate: '2026-01-01T16:30:00.000Z' } },
  },
  {
    name: 'EasySlip: date in UTC (Z)',
    doc: ES_TYPES,
    provider: 'easyslip',
    reply: es({ date: '2026-01-01T16:30:00.000Z' }),
    want: { kind: 'FOUND', slip: { transDate: '2026-01-01T16:30:00.000Z' } },
  },
  {
    // Undocumented form; a provider in Thailand means Thai time, not the zone our server runs in.
    name: 'EasySlip: date without a zone is Thai time (+07:00), whatever the server zone',
    doc: ES_TYPES,
    provider: 'easyslip',
    reply: es({ date: '2026-01-01T23:30:00' }),
    want: { kind: 'FOUND', slip: { transDate: '2026-01-01T16:30:00.000Z' } },
  },
  {
    // 01/02/2026 is 1 February in Thailand and 2 January to Date.parse: not guessed.
    name: 'EasySlip: a date that is not ISO 8601 is not guessed',
    doc: ES_TYPES,
    provider: 'easyslip',
    reply: es({ date: '01/02/2026 10:00' }),
    want: { kind: 'UNAVAILABLE' },
    never: ['FOUND', 'NOT_FOUND'],
  },
  {
    // Number(null) is 0: a missing amount once read as a 0.00 transfer (SUCCESS without an expected amount).
    name: 'EasySlip: an answer without an amount is not a 0.00 transfer',
    doc: ES_TYPES,
    provider: 'easyslip',
    reply: es({ amount: { amount: null, local: {} } }),
    want: { kind: 'UNAVAILABLE' },
    never: ['FOUND', 'NOT_FOUND'],
  },
  {
    name: 'EasySlip: an empty-string amount is not a 0.00 transfer',
    doc: ES_TYPES,
    provider: 'easyslip',
    reply: es({ amount: '' }),
    want: { kind: 'UNAVAILABLE' },
    never: ['FOUND', 'NOT_FOUND'],
  },
  {
    // 'BANKAC' | 'TOKEN' | 'DUMMY': only BANKAC is documented as a bank account; a dummy/token number
    // whose last digits happen to equal the shop's must not pass as the shop's account.
    name: 'EasySlip: a DUMMY or TOKEN receiver number is not taken for a bank account',
    doc: ES_TYPES,
    provider: 'easyslip',
    reply: esReceiver({ name: { th: 'ร้าน' }, bank: { type: 'DUMMY', account: 'xxx-x-x6660-9' } }),
    want: { kind: 'FOUND', slip: { receiver: { account: null } } },
  },
  {
    name: 'EasySlip: 404 SLIP_NOT_FOUND for a bank payload is "no such transfer"',
    doc: ES_ERRORS,
    provider: 'easyslip',
    reply: easySlipError(404, 'SLIP_NOT_FOUND'),
    want: { kind: 'NOT_FOUND' },
  },
  {
    // Not in the v2 error table; a rate limit in front of it says when to come back: the shop's message
    // says "in about N minutes" from it instead of "in a minute".
    name: 'EasySlip: a 429 with Retry-After is a plain outage that says when to come back',
    doc: ES_ERRORS,
    provider: 'easyslip',
    reply: { status: 429, body: { success: false, error: { code: 'RATE_LIMITED', message: 'x' } }, headers: { 'retry-after': '180' } },
    want: { kind: 'UNAVAILABLE', retryAfterSeconds: 180 },
  },
  {
    // SCB (014) and Bangkok Bank (002) publish transfers minutes late (SlipOK documents it as 1010);
    // EasySlip's table has no such code, so its "not found" for their slip may mean "not yet".
    name: 'EasySlip: 404 SLIP_NOT_FOUND for an SCB bank slip may be "not published yet"',
    doc: ES_ERRORS,
    provider: 'easyslip',
    q: { ...bankQ, bankCode: '014', payload: bankQ.payload.replace('0103004', '0103014') },
    reply: easySlipError(404, 'SLIP_NOT_FOUND'),
    want: { kind: 'NOT_FOUND', mayBeUnpublished: true },
  },
  {
    // Only MISSING_API_KEY / INVALID_API_KEY are documented for 401; a 401 with another or no code
    // (a gateway in front, a renamed code) is still "our key is refused": an operator problem.
    name: 'EasySlip: a 401 without a documented code is still the key: account error, not a plain outage',
    doc: ES_ERRORS,
    provider: 'easyslip',
    reply: { status: 401, body: { message: 'Unauthorized' } },
    want: { kind: 'UNAVAILABLE', account: 'key_invalid', retryable: false },
  },
  // ---------------------------------------------------------------- EasySlip, TrueMoney wallet (image)
  {
    name: 'EasySlip TrueMoney: wallet slip with masked receiver phone',
    // the v2 page points at a type we could not read; the fields are those of the v1 wallet page
    doc: `${ES_WALLET} (fields: ${ES_WALLET_V1})`,
    provider: 'easyslip',
    q: walletQ,
    reply: {
      status: 200,
      body: {
        success: true,
        message: 'ok',
        data: {
          transactionId: '50012345678901',
          date: '2026-01-01T10:00:00+07:00',
          amount: 99.75,
          sender: { name: 'อีซี่ สลิป' },
          receiver: { name: 'อีซี่ สลิป', phone: '098-***-4321' },
        },
      },
    },
    want: {
      kind: 'FOUND',
      slip: {
        transRef: '50012345678901',
        transDate: '2026-01-01T03:00:00.000Z',
        receiver: { proxy: { type: 'PHONE', value: '098-***-4321' } },
      },
    },
    satang: 9975,
  },
  {
    // "Slip not found or invalid" caused by "Invalid slip or no QR": from the picture endpoint that is
    // also "could not read the QR we read ourselves". A genuine wallet slip was once called FRAUD so.
    name: 'EasySlip TrueMoney: 404 SLIP_NOT_FOUND from the image endpoint is not "forged"',
    doc: ES_ERRORS,
    provider: 'easyslip',
    q: walletQ,
    reply: easySlipError(404, 'SLIP_NOT_FOUND'),
    want: { kind: 'UNSUPPORTED' },
    never: ['NOT_FOUND', 'FOUND'],
  },
  {
    name: 'EasySlip TrueMoney: a wallet answer without an amount is not a 0.00 transfer',
    doc: ES_WALLET,
    provider: 'easyslip',
    q: walletQ,
    reply: {
      status: 200,
      body: {
        success: true,
        data: { transactionId: '50012345678901', date: '2026-01-01T10:00:00+07:00', amount: null, receiver: { name: 'x' } },
      },
    },
    want: { kind: 'UNAVAILABLE' },
    never: ['FOUND', 'NOT_FOUND'],
  },
  // ---------------------------------------------------------------- SlipOK
  {
    name: 'SlipOK: bank account receiver, displayName and English name',
    doc: OK_CHECK,
    provider: 'slipok',
    reply: okReceiver({ account: { type: 'BANKAC', value: 'xxx-x-x6660-x' } }),
    want: {
      kind: 'FOUND',
      slip: { receiver: { name: 'บจก. ร้านกาแฟ ทดสอบ', nameEn: 'CAFE TEST CO', account: 'xxx-x-x6660-x', proxy: null, bankCode: '004' } },
    },
  },
  {
    name: 'SlipOK: amount with satang',
    doc: OK_CHECK,
    provider: 'slipok',
    reply: ok({ amount: 1000.25 }),
    want: { kind: 'FOUND' },
    satang: 100025,
  },
  {
    name: 'SlipOK: PromptPay to a phone number (MSISDN), no bank account',
    doc: OK_CHECK,
    provider: 'slipok',
    reply: okReceiver({ proxy: { type: 'MSISDN', value: 'xxx-xxx-5678' } }),
    want: { kind: 'FOUND', slip: { receiver: { account: null, proxy: { type: 'PHONE', value: 'xxx-xxx-5678' } } } },
  },
  {
    name: 'SlipOK: PromptPay to a national id (NATID)',
    doc: OK_CHECK,
    provider: 'slipok',
    reply: okReceiver({ proxy: { type: 'NATID', value: 'x-xxxx-xxxxx-12-3' } }),
    want: { kind: 'FOUND', slip: { receiver: { proxy: { type: 'NATID', value: 'x-xxxx-xxxxx-12-3' } } } },
  },
  {
    name: 'SlipOK: PromptPay to an e-wallet id (EWALLETID)',
    doc: OK_CHECK,
    provider: 'slipok',
    reply: okReceiver({ proxy: { type: 'EWALLETID', value: 'xxxxxxxxxxx4567' } }),
    want: { kind: 'FOUND', slip: { receiver: { proxy: { type: 'EWALLET', value: 'xxxxxxxxxxx4567' } } } },
  },
  {
    name: 'SlipOK: transTimestamp (ISO, Z) is the transfer time',
    doc: OK_CHECK,
    provider: 'slipok',
    reply: ok({ transTimestamp: '2020-04-01T03:15:07.000Z' }),
    want: { kind: 'FOUND', slip: { transDate: '2020-04-01T03:15:07.000Z' } },
  },
  {
    name: 'SlipOK: without transTimestamp, transDate yyyyMMdd + transTime HH:mm:ss in Thai time',
    doc: OK_CHECK,
    provider: 'slipok',
    reply: ok({ transTimestamp: undefined, transDate: '20200401', transTime: '10:15:07' }),
    want: { kind: 'FOUND', slip: { transDate: '2020-04-01T03:15:07.000Z' } },
  },
  {
    // transTime is mandatory in the response table; without it the time is unknown, not midnight
    // (a made-up 00:00 ages a fresh slip by up to a day for the stale rule).
    name: 'SlipOK: without transTimestamp, a transDate without a usable transTime is not given a made-up midnight',
    doc: OK_CHECK,
    provider: 'slipok',
    reply: ok({ transTimestamp: undefined, transDate: '20200401', transTime: '' }),
    want: { kind: 'UNAVAILABLE' },
    never: ['FOUND', 'NOT_FOUND'],
  },
  {
    name: 'SlipOK: a transTimestamp without a zone is Thai time',
    doc: OK_CHECK,
    provider: 'slipok',
    reply: ok({ transTimestamp: '2020-04-01T10:15:07' }),
    want: { kind: 'FOUND', slip: { transDate: '2020-04-01T03:15:07.000Z' } },
  },
  {
    name: 'SlipOK: the error code as a string ("1011") reads as the number',
    doc: OK_SDK,
    provider: 'slipok',
    reply: { status: 400, body: { success: false, code: '1011', message: 'x' } },
    want: { kind: 'NOT_FOUND' },
  },
  {
    // The documents are about bank slips only ("the QR at the bottom right of the slip"); nothing says
    // a wallet payload is checked, so "expired or no such transaction" for one is not "forged".
    name: 'SlipOK: 1011 for a TrueMoney wallet payload is "cannot check", not "no such transfer"',
    doc: OK_CHECK,
    provider: 'slipok',
    q: walletQ,
    reply: { status: 400, body: { success: false, code: 1011, message: 'x' } },
    want: { kind: 'UNSUPPORTED' },
    never: ['NOT_FOUND', 'FOUND'],
  },
  {
    name: 'SlipOK: a 401 without a code is the key (1002 is its documented form)',
    doc: OK_SDK,
    provider: 'slipok',
    reply: { status: 401, body: 'Unauthorized' },
    want: { kind: 'UNAVAILABLE', account: 'key_invalid', retryable: false },
  },
  {
    name: 'SlipOK: an answer without an amount is not a 0.00 transfer',
    doc: OK_CHECK,
    provider: 'slipok',
    reply: ok({ amount: null }),
    want: { kind: 'UNAVAILABLE' },
    never: ['FOUND', 'NOT_FOUND'],
  },
  {
    // data.success is "Valid QR code" (boolean, mandatory): a false there is not a confirmed transfer.
    name: 'SlipOK: data.success false ("valid QR code": no) is not a confirmed transfer',
    doc: OK_CHECK,
    provider: 'slipok',
    reply: ok({ success: false }),
    want: { kind: 'UNAVAILABLE' },
    never: ['FOUND', 'NOT_FOUND'],
  },
  {
    name: 'SlipOK: a DUMMY or TOKEN receiver number is not taken for a bank account',
    doc: OK_SDK,
    provider: 'slipok',
    reply: okReceiver({ account: { type: 'TOKEN', value: 'xxx-x-x6660-x' } }),
    want: { kind: 'FOUND', slip: { receiver: { account: null } } },
  },
];

describe('documented provider answers, read as the provider meant them', () => {
  it.each(ROWS)('$name', async (row) => {
    f.reply = row.reply;
    const c = row.provider === 'easyslip' ? easyslip() : slipok();
    const r = await c.check(row.q ?? bankQ);
    expect(r, row.doc).toMatchObject(row.want);
    for (const k of row.never ?? []) expect(r.kind, row.doc).not.toBe(k);
    if (row.satang !== undefined) expect(r.kind === 'FOUND' ? satangFromAmount(r.slip.amount) : null, row.doc).toBe(row.satang);
    // a malformed answer is not an account problem (no operator incident for it)
    if (r.kind === 'UNAVAILABLE' && !('account' in row.want)) expect(r.account).toBeUndefined();
  });
});

describe('account routes (quota polling), read as documented', () => {
  it('SlipOK quota: a null quota is unknown, not 0 remaining; a null overQuota is no overage', async () => {
    // QuotaData {quota: number, specialQuota, overQuota} in the public client; null is not a count
    f.reply = { status: 200, body: { success: true, data: { quota: null, specialQuota: 0, overQuota: null } } };
    expect(await slipok().account()).toMatchObject({ reachable: true, credentialsAccepted: true, quotaRemaining: null, overage: 0 });
    f.reply = { status: 200, body: { success: true, data: { quota: 120, specialQuota: 0, overQuota: 3 } } };
    expect(await slipok().account()).toMatchObject({ quotaRemaining: 120, overage: 3 });
    expect(f.up.requests.at(-1)).toMatchObject({ method: 'GET', url: `${SLIPOK_BRANCH_PATH}/quota` });
  });

  it('SlipOK quota: a 401 without a code is the key, as on the check route', async () => {
    f.reply = { status: 401, body: 'Unauthorized' };
    expect(await slipok().account()).toMatchObject({ reachable: true, credentialsAccepted: false, problem: 'key_invalid' });
  });
});
