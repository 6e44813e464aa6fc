import { ERROR_CODES, RESULT_ERROR_CODES } from '@slipcheck/sdk';
import { STATUSES, type TransactionRecord, type TxStatus } from '../api/types';
import type { MessageKey } from '../i18n/i18n';
import { th } from '../i18n/th';

export type Tone = 'ok' | 'warn' | 'error' | 'info';

/** One plain-language reading of a result; each has a title, what it means, and what to do next. */
export const VARIANTS = [
  'genuine',
  'genuineStale',
  'genuineEdited',
  'duplicate',
  'amount',
  'wrongAccount',
  'receiverUnverified',
  'staleRejected',
  'noQr',
  'notSlipQr',
  'multipleSlips',
  'badChecksum',
  'unknownBank',
  'invalid',
  'fake',
  'edited',
  'pending',
  'retry',
  'cannotCheck',
  'notSupported',
  'quota',
] as const;
export type Variant = (typeof VARIANTS)[number];

export const VARIANT_TONE: Record<Variant, Tone> = {
  genuine: 'ok',
  genuineStale: 'warn',
  genuineEdited: 'warn',
  duplicate: 'warn',
  amount: 'warn',
  wrongAccount: 'error',
  receiverUnverified: 'warn',
  staleRejected: 'error',
  noQr: 'info',
  notSlipQr: 'info',
  multipleSlips: 'info',
  badChecksum: 'error',
  unknownBank: 'warn',
  invalid: 'error',
  fake: 'error',
  cannotCheck: 'warn',
  notSupported: 'warn',
  edited: 'error',
  pending: 'info',
  retry: 'info',
  quota: 'error',
};

/**
 * The errorCodes the service puts on records, per status: from the SDK's error catalogue (each result
 * code names the statuses it comes with). The unit test walks this table, so a code added to the
 * catalogue without wording here fails the build. QUOTA_EXCEEDED records of older versions carry
 * their status as the code.
 */
export const KNOWN_ERROR_CODES: Record<TxStatus, (string | null)[]> = Object.fromEntries(
  STATUSES.map((s) => [
    s,
    [
      null,
      ...RESULT_ERROR_CODES.filter((c) => (ERROR_CODES[c].on as readonly string[] | undefined)?.includes(s)),
      ...(s === 'QUOTA_EXCEEDED' ? [s] : []),
    ],
  ]),
) as Record<TxStatus, (string | null)[]>;

export function variantOf(r: Pick<TransactionRecord, 'status' | 'errorCode' | 'stale'> & { edited?: boolean }): Variant {
  switch (r.status) {
    // stale or edited on SUCCESS is the "alert" mode: the money did arrive, but the owner should look twice.
    case 'SUCCESS':
      return r.edited ? 'genuineEdited' : r.stale ? 'genuineStale' : 'genuine';
    case 'DUPLICATE':
      return 'duplicate';
    case 'AMOUNT_MISMATCH':
      return 'amount';
    case 'RECEIVER_MISMATCH':
      return r.errorCode === 'RECEIVER_UNVERIFIED' ? 'receiverUnverified' : 'wrongAccount';
    case 'FRAUD':
      return r.errorCode === 'EDITED_SLIP' ? 'edited' : 'fake';
    case 'QUOTA_EXCEEDED':
      return 'quota';
    case 'PROVIDER_ERROR':
      return r.errorCode === 'SLIP_PENDING' ? 'pending' : r.errorCode === 'CHECK_UNAVAILABLE' ? 'cannotCheck' : 'retry';
    case 'INVALID':
      switch (r.errorCode) {
        case 'STALE_SLIP':
          return 'staleRejected';
        case 'NO_QR_FOUND':
        case 'UNREADABLE_IMAGE':
        case null:
          return 'noQr';
        case 'NOT_SLIP_QR':
          return 'notSlipQr';
        case 'MULTIPLE_SLIPS':
          return 'multipleSlips';
        case 'BAD_CHECKSUM':
          return 'badChecksum';
        case 'UNKNOWN_BANK':
          return 'unknownBank';
        case 'CHECK_NOT_SUPPORTED':
          return 'notSupported';
        default:
          return 'invalid';
      }
    default:
      return 'retry';
  }
}

export interface Explanation {
  variant: Variant;
  tone: Tone;
  title: MessageKey;
  body: MessageKey;
  next: MessageKey;
  /** Extra lines: a replay of a result that was no payment says it is the earlier check ({time}). */
  notes: MessageKey[];
  /** Same picture within 24 h: the earlier record (a warning when it was a payment). */
  replay: boolean;
}

/**
 * The results where the money arrived (or was already counted once): replaying one of them must never
 * read as a new payment. Every other result was no payment the first time either.
 */
const PAYMENT_STATUSES: readonly TxStatus[] = ['SUCCESS', 'DUPLICATE', 'AMOUNT_MISMATCH'];

export function explainResult(r: Pick<TransactionRecord, 'status' | 'errorCode' | 'stale' | 'cached'> & { edited?: boolean }): Explanation {
  const variant = variantOf(r);
  // A replay (same picture within 24 h) of a payment is never a fresh "paid": the money is the one already
  // counted, so the card is a warning whatever the first result was; the first result is named in its body.
  if (r.cached && PAYMENT_STATUSES.includes(r.status)) {
    return {
      variant,
      replay: true,
      tone: 'warn',
      title: 'result.replay.title',
      body: 'result.replay.body',
      next: 'result.replay.next',
      notes: [],
    };
  }
  // A replay of a result that was no payment (not a slip, fake, wrong account...) gives that result's own
  // advice again, e.g. "ask for the original slip": "do not deliver twice" made no sense for it.
  return {
    replay: !!r.cached,
    variant,
    tone: VARIANT_TONE[variant],
    title: `result.${variant}.title` as MessageKey,
    body: `result.${variant}.body` as MessageKey,
    next: `result.${variant}.next` as MessageKey,
    notes: r.cached ? ['result.replay.again'] : [],
  };
}

/**
 * Why a result is what it is, in the page's language: the words of its errorCode (the SDK catalogue's,
 * `error.<CODE>` in i18n), or of its status when it has no code. The service's `errorMessage` is
 * English for integrators; it is shown only for a code this dashboard does not know (a newer service),
 * where it is better than nothing. Null when the result gives no reason (a plain SUCCESS).
 */
export function reasonOf(
  r: Pick<TransactionRecord, 'status' | 'errorCode' | 'errorMessage'>,
): { key: MessageKey } | { text: string } | null {
  if (!r.errorCode && !r.errorMessage) return null;
  if (!r.errorCode) return { key: `status.${r.status}` as MessageKey };
  const key = `error.${r.errorCode}`;
  if (key in th) return { key: key as MessageKey };
  return r.errorMessage ? { text: r.errorMessage } : null;
}

/** The expected amount of an AMOUNT_MISMATCH, read from the service's message ("... differs from the expected 1,500.00 THB."). */
export function expectedAmountOf(r: Pick<TransactionRecord, 'status' | 'errorMessage'>): number | null {
  if (r.status !== 'AMOUNT_MISMATCH' || !r.errorMessage) return null;
  const m = /expected ([\d,]+(?:\.\d+)?) THB/.exec(r.errorMessage);
  if (!m) return null;
  const n = Number(m[1].replace(/,/g, ''));
  return Number.isFinite(n) ? n : null;
}

/** Bank names may carry bidi controls (U+202E turns "ABC" into "CBA" on screen): removed before display. */
export const stripBidi = (s: string) => s.replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
