// LINE wording of the checker-side result codes: the service cannot check for now (a provider account
// problem) and a kind of slip no configured checker can verify. Thai and English, both audiences,
// and never the provider's name.
import { describe, expect, it } from 'vitest';
import { resultMessage } from '../../src/modules/line/line-messages.js';
import { recordFromRow } from '../../src/modules/transactions/transaction-record.js';
import { transactionRow } from '../helpers/records.js';

const record = (status: string, errorCode: string) =>
  recordFromRow(
    transactionRow('shop_1', new Date('2026-01-01T03:00:00Z'), status, { error_code: errorCode, charged: 0, amount_satang: null }),
  );
const text = (m: unknown) => JSON.stringify(m);

describe('LINE wording of checker result codes', () => {
  it.each([
    ['PROVIDER_ERROR', 'CHECK_UNAVAILABLE', /ตรวจสลิปอัตโนมัติไม่ได้ชั่วคราว/, /unavailable for now/, /operator has been alerted/],
    ['INVALID', 'CHECK_NOT_SUPPORTED', /ยังตรวจอัตโนมัติไม่ได้/, /cannot be checked automatically yet/, /cannot be checked by the service yet/],
  ])('%s %s', (status, code, customerTh, customerEn, staffEn) => {
    const r = record(status, code);
    const ctx = { replay: false } as const;
    expect(text(resultMessage(r, 'th', 'Asia/Bangkok', { ...ctx, audience: 'customer' }))).toMatch(customerTh);
    expect(text(resultMessage(r, 'en', 'Asia/Bangkok', { ...ctx, audience: 'customer' }))).toMatch(customerEn);
    const staff = text(resultMessage(r, 'en', 'Asia/Bangkok', { ...ctx, audience: 'staff' }));
    expect(staff).toMatch(staffEn);
    // not "send it again in a moment": that is false for both
    expect(staff).not.toMatch(/again in a moment/);
    for (const lang of ['th', 'en'] as const)
      for (const audience of ['customer', 'staff'] as const)
        expect(text(resultMessage(r, lang, 'Asia/Bangkok', { ...ctx, audience }))).not.toMatch(/slipok|easyslip/i);
  });
});
