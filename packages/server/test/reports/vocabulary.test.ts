/**
 * One vocabulary (issue 21): every status, bank, channel and mode has its words in Thai and English in
 * the SDK's table, and the screen, the exports, the daily summary and LINE read them from there. A new
 * status, bank or channel without words fails here.
 */
import { describe, expect, it } from 'vitest';
import {
  ALL_ERROR_CODES,
  ERROR_CODES,
  ERROR_CODE_WORDS,
  WORDED_RESULT_CODES,
  ENVIRONMENT_WORDS,
  MONEY_WORDS,
  SOURCE_WORDS,
  STALE_WORD,
  STATUS_WORDS,
  TRANSACTION_SOURCES,
  TRANSACTION_STATUSES,
  bankWord,
  resultWord,
} from '@slipcheck/sdk';
import { BANKS, TRUEMONEY_CODE } from '../../src/modules/slip-qr/slip-qr-banks.js';
import { mailTemplates } from '../../src/modules/mail/mail-templates.js';
import { resultMessage } from '../../src/modules/line/line-messages.js';
import type { TransactionRecord } from '../../src/modules/transactions/transaction-record.js';
import { th } from '../../../web/src/i18n/th.js';
import { en } from '../../../web/src/i18n/en.js';

const LANGS = ['th', 'en'] as const;

describe('one vocabulary', () => {
  it('every status, channel and mode has a Thai and an English word', () => {
    for (const s of TRANSACTION_STATUSES) for (const l of LANGS) expect(STATUS_WORDS[s]?.[l]?.trim(), `${s} ${l}`).toBeTruthy();
    for (const s of TRANSACTION_SOURCES) for (const l of LANGS) expect(SOURCE_WORDS[s]?.[l]?.trim(), `${s} ${l}`).toBeTruthy();
    for (const e of ['live', 'test'] as const) for (const l of LANGS) expect(ENVIRONMENT_WORDS[e][l].trim()).toBeTruthy();
    // Thai words are Thai where the thing has a Thai name (the channel names API and LINE are names).
    expect(Object.values(STATUS_WORDS).every((w) => /[\u0E00-\u0E7F]/.test(w.th))).toBe(true);
    expect(SOURCE_WORDS.DASHBOARD.th).not.toBe('DASHBOARD');
    expect(ENVIRONMENT_WORDS.live.th).not.toBe('live');
  });

  it('every bank the slip reader knows (and PromptPay, TrueMoney) has its name in both languages', () => {
    for (const code of [...Object.keys(BANKS), TRUEMONEY_CODE, 'PROMPTPAY']) {
      for (const l of LANGS) {
        const word = bankWord(code, l);
        expect(word, `${code} ${l}`).not.toBe(code);
        expect(word.trim(), `${code} ${l}`).toBeTruthy();
      }
      expect(/[\u0E00-\u0E7F]/.test(bankWord(code, 'th')), code).toBe(true);
    }
  });

  it('the screen uses the same words as the exports and messages', () => {
    for (const s of TRANSACTION_STATUSES) {
      expect(th[`status.${s}` as keyof typeof th]).toBe(STATUS_WORDS[s].th);
      expect(en[`status.${s}` as keyof typeof en]).toBe(STATUS_WORDS[s].en);
    }
    for (const s of TRANSACTION_SOURCES) {
      expect(th[`source.${s}` as keyof typeof th]).toBe(SOURCE_WORDS[s].th);
      expect(en[`source.${s}` as keyof typeof en]).toBe(SOURCE_WORDS[s].en);
    }
    expect(MONEY_WORDS.th.verified).toBe(STATUS_WORDS.SUCCESS.th);
  });

  it('every error code has its words in Thai and English, and the screen shows the same words', () => {
    // The screen adds the field the server named to a validation error; every other code reads as the catalogue says.
    const screenSaysMore = new Set(['VALIDATION_ERROR']);
    for (const code of ALL_ERROR_CODES) {
      for (const l of LANGS) expect(ERROR_CODES[code][l].trim(), `${code} ${l}`).toBeTruthy();
      const key = `error.${code}` as keyof typeof th;
      if (screenSaysMore.has(code)) {
        expect(th[key]).toContain(ERROR_CODES[code].th);
        expect(en[key]).toContain(ERROR_CODES[code].en);
      } else {
        expect(th[key], code).toBe(ERROR_CODES[code].th);
        expect(en[key], code).toBe(ERROR_CODES[code].en);
      }
    }
  });

  it('a result whose code says more than its status reads as the code, in exports, LINE and the screen alike', () => {
    expect(WORDED_RESULT_CODES).toEqual(expect.arrayContaining(['EDITED_SLIP', 'CHECK_NOT_SUPPORTED', 'CHECK_UNAVAILABLE']));
    for (const code of WORDED_RESULT_CODES) {
      for (const status of ERROR_CODES[code].on ?? []) {
        if (status === 'RECEIVER_MISMATCH') continue;
        for (const l of LANGS) expect(resultWord({ status, errorCode: code }, l), `${code} on ${status}`).toBe(ERROR_CODE_WORDS[code][l]);
      }
    }
    // An edited slip's export says edited, not the plain "fake slip" of a transfer the bank never made.
    expect(resultWord({ status: 'FRAUD', errorCode: 'EDITED_SLIP' }, 'en')).not.toBe(STATUS_WORDS.FRAUD.en);
    expect(resultWord({ status: 'FRAUD', errorCode: 'EDITED_SLIP' }, 'th')).not.toBe(STATUS_WORDS.FRAUD.th);
  });

  it('a pending transfer reads as not published yet, a stale one as old, never as plain genuine', () => {
    expect(resultWord({ status: 'PROVIDER_ERROR', errorCode: 'SLIP_PENDING' }, 'th')).toBe('ธนาคารยังไม่แสดงรายการ');
    expect(resultWord({ status: 'PROVIDER_ERROR', errorCode: 'SLIP_PENDING' }, 'en')).toMatch(/not published/);
    expect(resultWord({ status: 'SUCCESS', stale: true }, 'th')).toBe('สลิปเก่า · ถูกต้อง');
    expect(resultWord({ status: 'SUCCESS', stale: false }, 'en')).toBe('Genuine');
  });
});

describe('stale slips in LINE replies', () => {
  const rec: TransactionRecord = {
    id: 'txn_1',
    status: 'SUCCESS',
    verified: true,
    transRef: '016330141500AQR07688',
    amount: 120,
    bankCode: '014',
    bankName: 'Siam Commercial Bank',
    senderName: 'นาย สมชาย ใ',
    senderAccount: 'xxx-x-x4567-x',
    receiverName: 'บจก. ร้านกาแฟ ทดสอบ',
    receiverAccount: 'xxx-xxx660-9',
    transDate: '2026-11-20T03:15:00Z',
    errorCode: null,
    errorMessage: null,
    createdAt: '2026-11-23T03:16:00Z',
    duplicate: false,
    cached: false,
    latencyMs: 900,
    environment: 'live',
    source: 'LINE',
    clientRef: null,
    stale: true,
    printedAmount: null,
    edited: false,
  };
  it("the shop's bubble says old slip in its header and colour, in Thai and English", () => {
    for (const lang of LANGS) {
      const m = JSON.stringify(resultMessage(rec, lang, 'Asia/Bangkok', { audience: 'staff', replay: false }));
      const header = JSON.stringify((JSON.parse(m) as { contents: { header?: unknown; body?: unknown } }).contents.header ?? '');
      expect(m).toContain(lang === 'th' ? 'สลิปเก่า' : 'Old slip');
      expect(header + m.slice(0, 400)).toMatch(lang === 'th' ? /สลิปเก่า/ : /Old slip/);
      expect(m).toContain('#E67E22');
      const fresh = JSON.stringify(resultMessage({ ...rec, stale: false }, lang, 'Asia/Bangkok', { audience: 'staff', replay: false }));
      expect(fresh).not.toContain(lang === 'th' ? 'สลิปเก่า' : 'Old slip');
    }
  });
});

describe('stale slips in e-mails', () => {
  it('the owner alert names it with the same word as the screen and LINE, in Thai and English', () => {
    const mail = mailTemplates.ownerAlert({ type: 'STALE_SLIP', shopName: 'ร้าน', transactionId: 'txn_1', dashboardUrl: 'https://x' });
    expect(mail.text).toContain(`${STALE_WORD.th}:`);
    expect(mail.text).toContain(`${STALE_WORD.en}:`);
  });
});
