import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES, ERROR_CODES } from '@slipcheck/sdk';
import { ApiError } from '../src/api/client';
import { STATUSES, type TxStatus } from '../src/api/types';
import { en } from '../src/i18n/en';
import { th } from '../src/i18n/th';
import { explainError, SCREEN_ERROR_CODES } from '../src/lib/error-explain';
import { expectedAmountOf, explainResult, KNOWN_ERROR_CODES, reasonOf, stripBidi, VARIANTS } from '../src/lib/result-explain';

const rec = (status: TxStatus, errorCode: string | null, extra: { stale?: boolean; cached?: boolean; edited?: boolean } = {}) => ({
  status,
  errorCode,
  stale: false,
  cached: false,
  ...extra,
});
const thai = /[\u0E00-\u0E7F]/;
/** The results that are money the shop received or was asked to count: a replay of these warns against delivering twice. */
const PAID: TxStatus[] = ['SUCCESS', 'DUPLICATE', 'AMOUNT_MISMATCH'];

function expectBothLanguages(key: string, label: string) {
  const k = key as keyof typeof th;
  expect(th[k], `${label}: th ${key}`).toMatch(thai);
  expect(en[k], `${label}: en ${key}`).toBeTruthy();
  expect(en[k], `${label}: en ${key} must not be Thai`).not.toMatch(thai);
}

describe('result card wording', () => {
  const cases = STATUSES.flatMap((s) =>
    KNOWN_ERROR_CODES[s].flatMap((code) => [false, true].flatMap((stale) => [false, true].map((cached) => ({ s, code, stale, cached })))),
  );

  it('lists error codes for every status', () => {
    for (const s of STATUSES) expect(KNOWN_ERROR_CODES[s].length, s).toBeGreaterThan(0);
  });

  it.each(cases)(
    '$s / $code / stale=$stale / cached=$cached has a Thai and English title, meaning and next step',
    ({ s, code, stale, cached }) => {
      const ex = explainResult(rec(s, code, { stale, cached }));
      for (const key of [ex.title, ex.body, ex.next, ...ex.notes]) expectBothLanguages(key, `${s}/${code}`);
      if (cached) expect(ex.replay).toBe(true);
      if (cached && PAID.includes(s)) expect([ex.tone, ex.title]).toEqual(['warn', 'result.replay.title']);
    },
  );

  it.each(STATUSES.flatMap((s) => KNOWN_ERROR_CODES[s].map((code) => ({ s, code }))))(
    '$s / $code: the reason on the detail page is words in both languages, never the service English',
    ({ s, code }) => {
      const reason = reasonOf({ status: s, errorCode: code, errorMessage: 'The service says so in English.' });
      expect(reason && 'key' in reason, `${s}/${code}`).toBe(true);
      if (reason && 'key' in reason) expectBothLanguages(reason.key, `${s}/${code}`);
    },
  );

  it('keeps the service sentence only for a code the dashboard does not know, and has no reason for a plain success', () => {
    expect(reasonOf({ status: 'INVALID', errorCode: 'SOME_NEW_CODE', errorMessage: 'Newer words.' })).toEqual({ text: 'Newer words.' });
    expect(reasonOf({ status: 'SUCCESS', errorCode: null, errorMessage: null })).toBeNull();
  });

  it('reads each meaningful case differently', () => {
    const v = (s: TxStatus, code: string | null, extra?: { stale?: boolean; cached?: boolean; edited?: boolean }) =>
      explainResult(rec(s, code, extra)).variant;
    expect(v('SUCCESS', null)).toBe('genuine');
    expect(v('SUCCESS', null, { stale: true })).toBe('genuineStale');
    expect(v('RECEIVER_MISMATCH', 'RECEIVER_MISMATCH')).toBe('wrongAccount');
    expect(v('RECEIVER_MISMATCH', 'RECEIVER_UNVERIFIED')).toBe('receiverUnverified');
    expect(v('INVALID', 'STALE_SLIP')).toBe('staleRejected');
    expect(v('INVALID', 'NO_QR_FOUND')).toBe('noQr');
    expect(v('INVALID', 'NOT_SLIP_QR')).toBe('notSlipQr');
    expect(v('INVALID', 'MULTIPLE_SLIPS')).toBe('multipleSlips');
    expect(v('INVALID', 'BAD_CHECKSUM')).toBe('badChecksum');
    expect(v('INVALID', 'SOMETHING_NEW')).toBe('invalid');
    expect(v('PROVIDER_ERROR', 'SLIP_PENDING')).toBe('pending');
    expect(v('PROVIDER_ERROR', 'PROVIDER_UNAVAILABLE')).toBe('retry');
    expect(v('FRAUD', 'SLIP_NOT_FOUND')).toBe('fake');
    expect(v('FRAUD', 'EDITED_SLIP')).toBe('edited');
    expect(v('SUCCESS', null, { edited: true, stale: true })).toBe('genuineEdited');
    expect(new Set(VARIANTS.map((x) => th[`result.${x}.title` as keyof typeof th])).size).toBe(VARIANTS.length);
  });

  it('an edited slip says what the picture says and what the bank says, in Thai and English', () => {
    for (const key of ['result.edited.body', 'result.genuineEdited.body'] as const) {
      expect(th[key]).toContain('{printed}');
      expect(th[key]).toContain('{bank}');
    }
    expect(explainResult(rec('FRAUD', 'EDITED_SLIP')).tone).toBe('error');
    expect(explainResult(rec('SUCCESS', null, { edited: true })).tone).toBe('warn');
  });

  it('a replayed payment is a warning card (never a green "paid"): already checked, do not deliver twice', () => {
    for (const s of PAID) {
      for (const stale of [false, true]) {
        const ex = explainResult(rec(s, null, { cached: true, stale }));
        expect(ex.tone, s).toBe('warn');
        expect(ex.title, s).toBe('result.replay.title');
        expect(th[ex.body]).toContain('{time}');
        expect(th[ex.body]).toContain('{result}');
      }
    }
    expect(explainResult(rec('SUCCESS', null)).tone).toBe('ok');
    expect(explainResult(rec('SUCCESS', null)).replay).toBe(false);
  });

  it("a replayed result that was no payment repeats that result's own advice, and says it is the earlier check", () => {
    // The QA case: the same unreadable picture sent again was told "already checked: do not deliver twice".
    const notSlip = explainResult(rec('INVALID', 'UNREADABLE_IMAGE', { cached: true }));
    expect([notSlip.replay, notSlip.title, notSlip.next]).toEqual([true, 'result.noQr.title', 'result.noQr.next']);
    expect(notSlip.notes).toEqual(['result.replay.again']);
    expect(th['result.replay.again']).toContain('{time}');
    for (const s of STATUSES.filter((x) => !PAID.includes(x))) {
      for (const code of KNOWN_ERROR_CODES[s]) {
        const ex = explainResult(rec(s, code, { cached: true }));
        const first = explainResult(rec(s, code));
        expect([ex.title, ex.body, ex.next, ex.tone], `${s}/${code}`).toEqual([first.title, first.body, first.next, first.tone]);
        expect(ex.title, `${s}/${code}`).not.toBe('result.replay.title');
      }
    }
  });

  it('reads the expected amount of an AMOUNT_MISMATCH from the service message', () => {
    const m = { status: 'AMOUNT_MISMATCH' as const, errorMessage: 'The slip amount 1,250.50 THB differs from the expected 1,500.00 THB.' };
    expect(expectedAmountOf(m)).toBe(1500);
    expect(expectedAmountOf({ ...m, status: 'SUCCESS' })).toBeNull();
    expect(expectedAmountOf({ ...m, errorMessage: null })).toBeNull();
  });

  it('removes bidi controls from bank names', () => {
    expect(stripBidi('\u202eนาย สมชาย\u202c \u2066ABC\u2069')).toBe('นาย สมชาย ABC');
  });

  it('tells the owner not to ship on every result that is not a clean pass', () => {
    for (const s of STATUSES.filter((x) => x !== 'SUCCESS' && x !== 'QUOTA_EXCEEDED')) {
      for (const code of KNOWN_ERROR_CODES[s]) {
        const ex = explainResult(rec(s, code));
        expect(ex.tone, `${s}/${code}`).not.toBe('ok');
      }
    }
  });
});

describe('error wording', () => {
  it.each(SCREEN_ERROR_CODES)('%s has Thai and English wording', (code) => {
    const e = explainError(new ApiError(400, code, 'server text'), true);
    expect(e.key).toBe(code === 'RATE_LIMITED' ? 'error.RATE_LIMITED' : `error.${code}`);
    expectBothLanguages(e.key, code);
  });

  it('every error code of the catalogue reads as a sentence in both languages, none as the generic fallback', () => {
    for (const code of API_ERROR_CODES) {
      if (code === 'RATE_LIMITED') continue;
      const e = explainError(new ApiError(ERROR_CODES[code].status, code, 'server text'), true);
      expect(e.key, code).toBe(`error.${code}`);
      expectBothLanguages(e.key, code);
    }
  });

  it("a 402 says why: the trial's end apart from a used-up month", () => {
    const trial = explainError(new ApiError(402, 'QUOTA_EXCEEDED', 'x', { reason: 'TRIAL_ENDED' }), true);
    const month = explainError(new ApiError(402, 'QUOTA_EXCEEDED', 'x', { reason: 'MONTHLY_QUOTA' }), true);
    expect(trial.key).toBe('error.QUOTA_EXCEEDED.TRIAL_ENDED');
    expect(month.key).toBe('error.QUOTA_EXCEEDED.MONTHLY_QUOTA');
    for (const k of [trial.key, month.key]) expectBothLanguages(k, k);
    expect(th[trial.key]).not.toBe(th[month.key]);
    // No reason (an older server): the catalogue's sentence that covers both.
    expect(explainError(new ApiError(402, 'QUOTA_EXCEEDED', 'x'), true).key).toBe('error.QUOTA_EXCEEDED');
    expect(explainError(new ApiError(402, 'TEST_QUOTA_EXCEEDED', 'x', { reason: 'TEST_CAP' }), true).key).toBe('error.TEST_QUOTA_EXCEEDED');
  });

  it('says how long to wait after a rate limit when the server tells', () => {
    const e = explainError(new ApiError(429, 'RATE_LIMITED', 'slow down', { retryAfter: '12' }), true);
    expect(e).toEqual({ key: 'error.RATE_LIMITED_wait', vars: { seconds: 12 } });
    expect(th['error.RATE_LIMITED_wait'].replace('{seconds}', '12')).toContain('12');
  });

  it('tells offline apart from a server that did not answer', () => {
    expect(explainError(new TypeError('Failed to fetch'), false).key).toBe('error.offline');
    // A server reason is said in the person's language, never the server's English sentence (issue 21).
    const refused = explainError(
      new ApiError(400, 'INVALID_WEBHOOK_URL', 'url host nope.invalid does not resolve', { reason: 'DOES_NOT_RESOLVE' }),
      true,
    );
    expect(refused.key).toBe('error.INVALID_WEBHOOK_URL.DOES_NOT_RESOLVE');
    expect(th[refused.key].replace('{host}', String(refused.vars?.host))).toContain('nope.invalid');
    expect(th[refused.key]).toMatch(thai);
    for (const r of [
      'REQUIRED',
      'TOO_LONG',
      'NOT_A_URL',
      'NOT_HTTPS',
      'HAS_CREDENTIALS',
      'HAS_FRAGMENT',
      'NO_HOST',
      'DOES_NOT_RESOLVE',
      'NOT_PUBLIC',
    ])
      expectBothLanguages(`error.INVALID_WEBHOOK_URL.${r}`, r);
    expect(explainError(new TypeError('Failed to fetch'), true).key).toBe('error.network');
    expect(explainError(new ApiError(502, 'HTTP_502', 'Bad Gateway'), true).key).toBe('error.server');
    for (const k of ['error.offline', 'error.network', 'error.server', 'error.generic'] as const) expectBothLanguages(k, k);
  });

  it('keeps an unknown code’s server message as a detail instead of a bare code', () => {
    expect(explainError(new ApiError(400, 'BRAND_NEW', 'Something specific'), true)).toEqual({
      key: 'error.generic',
      fallback: 'Something specific',
    });
  });
});
