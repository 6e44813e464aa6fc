// The words a person reads for each status, bank, channel and mode, in Thai and English: one table for
// the dashboard, the mini-app, the exports, LINE replies and e-mails (and SDK users who show results to
// shop staff). Words that differ between two of those places were the same thing said two ways.
import { THAI_BANKS } from './banks.js';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';
import type { TransactionSource, TransactionStatus } from './types.js';

export type WordLang = 'th' | 'en';
export interface Word {
  th: string;
  en: string;
}

export const STATUS_WORDS: Readonly<Record<TransactionStatus, Word>> = Object.freeze({
  SUCCESS: { th: 'ถูกต้อง', en: 'Genuine' },
  DUPLICATE: { th: 'สลิปซ้ำ', en: 'Duplicate' },
  AMOUNT_MISMATCH: { th: 'ยอดไม่ตรง', en: 'Amount differs' },
  RECEIVER_MISMATCH: { th: 'บัญชีผู้รับไม่ตรง', en: 'Wrong account' },
  INVALID: { th: 'อ่านไม่ได้/ไม่ใช่สลิป', en: 'Unreadable / not a slip' },
  FRAUD: { th: 'สลิปปลอม', en: 'Fake slip' },
  QUOTA_EXCEEDED: { th: 'โควตาหมด', en: 'Quota used up' },
  PROVIDER_ERROR: { th: 'ตรวจไม่ได้ชั่วคราว', en: 'Could not check yet' },
});

/**
 * Result codes that say more than the record's status: the word shown instead of the status's own (an
 * edited slip is not just "fake"; a pending transfer is not a failed check). The words are the error
 * catalogue's (error-codes.ts), so the screen, exports, LINE and e-mails say the same.
 */
export const WORDED_RESULT_CODES = [
  'SLIP_PENDING',
  'PROVIDER_UNAVAILABLE',
  'CHECK_UNAVAILABLE',
  'CHECK_NOT_SUPPORTED',
  'STALE_SLIP',
  'RECEIVER_UNVERIFIED',
  'EDITED_SLIP',
] as const satisfies readonly ErrorCode[];
export type WordedResultCode = (typeof WORDED_RESULT_CODES)[number];

export const ERROR_CODE_WORDS: Readonly<Record<WordedResultCode, Word>> = Object.freeze(
  Object.fromEntries(WORDED_RESULT_CODES.map((c) => [c, Object.freeze({ th: ERROR_CODES[c].th, en: ERROR_CODES[c].en })])) as Record<
    WordedResultCode,
    Word
  >,
);

/** A genuine transfer made long before it was checked (may be a re-used slip): marked wherever a result shows. */
export const STALE_WORD: Word = Object.freeze({ th: ERROR_CODES.STALE_SLIP.th, en: ERROR_CODES.STALE_SLIP.en });

export const SOURCE_WORDS: Readonly<Record<TransactionSource, Word>> = Object.freeze({
  API: { th: 'API', en: 'API' },
  LINE: { th: 'LINE', en: 'LINE' },
  DASHBOARD: { th: 'หน้าเว็บ', en: 'Dashboard' },
});

export const ENVIRONMENT_WORDS: Readonly<Record<'live' | 'test', Word>> = Object.freeze({
  live: { th: 'ใช้งานจริง', en: 'Live' },
  test: { th: 'ทดสอบ', en: 'Test' },
});

/** Receiving "banks" that are not in the Bank of Thailand list. */
export const OTHER_BANK_WORDS: Readonly<Record<string, Word & { short: string }>> = Object.freeze({
  PROMPTPAY: { short: 'PromptPay', th: 'พร้อมเพย์', en: 'PromptPay' },
  TRUEMONEY: { short: 'TrueMoney', th: 'ทรูมันนี่ วอลเล็ท', en: 'TrueMoney Wallet' },
});

/** The money view's figures (docs/dashboard-api.md "The money figures"). */
export const MONEY_WORDS = Object.freeze({
  th: {
    received: 'รับเงินเข้าบัญชี',
    verified: STATUS_WORDS.SUCCESS.th,
    needsLook: 'ควรตรวจดู',
    under: 'โอนขาด',
    over: 'โอนเกิน',
    stale: STALE_WORD.th,
    edited: 'สลิปถูกแก้ยอด (เงินเข้าจริงตามธนาคาร)',
    stopped: 'กันไว้ได้',
    duplicate: STATUS_WORDS.DUPLICATE.th,
    forged: STATUS_WORDS.FRAUD.th,
    receiverMismatch: STATUS_WORDS.RECEIVER_MISMATCH.th,
    byPayee: 'แยกตามบัญชีรับเงิน',
    byChannel: 'แยกตามช่องทาง',
    notRecorded: 'ไม่ได้บันทึกบัญชี (ตรวจก่อนมีการบันทึก)',
    removed: 'บัญชีที่ลบแล้ว',
  },
  en: {
    received: 'Received',
    verified: STATUS_WORDS.SUCCESS.en,
    needsLook: 'Needs a look',
    under: 'Paid short',
    over: 'Paid over',
    stale: STALE_WORD.en,
    edited: 'Edited slip (the bank amount arrived)',
    stopped: 'Stopped',
    duplicate: STATUS_WORDS.DUPLICATE.en,
    forged: STATUS_WORDS.FRAUD.en,
    receiverMismatch: STATUS_WORDS.RECEIVER_MISMATCH.en,
    byPayee: 'By account',
    byChannel: 'By channel',
    notRecorded: 'Account not recorded (checked before it was)',
    removed: 'Removed account',
  },
} as const);

export const statusWord = (status: string, lang: WordLang): string =>
  (Object.hasOwn(STATUS_WORDS, status) ? STATUS_WORDS[status as TransactionStatus][lang] : null) ?? status;

/**
 * The word for a result as a person should read it: the error code's when it says more (a pending
 * transfer is not a failed check), "old slip" for a stale result, else the status's.
 */
export function resultWord(r: { status: string; errorCode?: string | null; stale?: boolean | null }, lang: WordLang): string {
  if (r.errorCode && Object.hasOwn(ERROR_CODE_WORDS, r.errorCode) && r.status !== 'RECEIVER_MISMATCH')
    return ERROR_CODE_WORDS[r.errorCode as WordedResultCode][lang];
  if (r.stale && (r.status === 'SUCCESS' || r.status === 'AMOUNT_MISMATCH')) return `${STALE_WORD[lang]} · ${statusWord(r.status, lang)}`;
  return statusWord(r.status, lang);
}

export const sourceWord = (source: string, lang: WordLang): string =>
  (Object.hasOwn(SOURCE_WORDS, source) ? SOURCE_WORDS[source as TransactionSource][lang] : null) ?? source;

export const environmentWord = (env: string, lang: WordLang): string =>
  env === 'live' || env === 'test' ? ENVIRONMENT_WORDS[env][lang] : env;

/** A bank's name in the language (Thai bank list, PromptPay, TrueMoney); `fallback` (e.g. the record's own name) or the code otherwise. */
export function bankWord(code: string | null | undefined, lang: WordLang, fallback?: string | null): string {
  if (!code) return fallback ?? '';
  const b = THAI_BANKS.find((x) => x.code === code);
  if (b) return lang === 'th' ? b.nameTh : b.nameEn;
  const o = Object.hasOwn(OTHER_BANK_WORDS, code) ? OTHER_BANK_WORDS[code] : undefined;
  return o ? o[lang] : fallback || code;
}
