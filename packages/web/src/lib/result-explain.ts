import type { TransactionRecord, TxStatus } from '../api/types';
import type { MessageKey } from '../i18n/i18n';

export type Tone = 'ok' | 'warn' | 'error' | 'info';

/** One plain-language reading of a result; each has a title, what it means, and what to do next. */
export const VARIANTS = [
  'genuine', 'genuineStale', 'duplicate', 'amount', 'wrongAccount', 'receiverUnverified', 'staleRejected',
  'noQr', 'notSlipQr', 'badChecksum', 'unknownBank', 'invalid', 'fake', 'pending', 'retry', 'quota',
] as const;
export type Variant = (typeof VARIANTS)[number];

export const VARIANT_TONE: Record<Variant, Tone> = {
  genuine: 'ok', genuineStale: 'warn', duplicate: 'warn', amount: 'warn', wrongAccount: 'error', receiverUnverified: 'warn',
  staleRejected: 'error', noQr: 'info', notSlipQr: 'info', badChecksum: 'error', unknownBank: 'warn', invalid: 'error',
  fake: 'error', pending: 'info', retry: 'info', quota: 'error',
};

/**
 * The errorCodes the service puts on records, per status (server: verification-service.ts,
 * slip-outcome.ts, slip-qr-decoder.ts). The unit test walks this table, so a code added here without
 * wording fails the build.
 */
export const KNOWN_ERROR_CODES: Record<TxStatus, (string | null)[]> = {
  SUCCESS: [null],
  DUPLICATE: [null, 'DUPLICATE'],
  AMOUNT_MISMATCH: [null, 'AMOUNT_MISMATCH'],
  RECEIVER_MISMATCH: [null, 'RECEIVER_MISMATCH', 'RECEIVER_UNVERIFIED'],
  INVALID: [null, 'STALE_SLIP', 'NO_QR_FOUND', 'NOT_SLIP_QR', 'BAD_CHECKSUM', 'UNKNOWN_BANK', 'UNREADABLE_IMAGE'],
  FRAUD: [null, 'SLIP_NOT_FOUND', 'DATA_MISMATCH'],
  QUOTA_EXCEEDED: [null, 'QUOTA_EXCEEDED'],
  PROVIDER_ERROR: [null, 'PROVIDER_UNAVAILABLE', 'SLIP_PENDING'],
};

export function variantOf(r: Pick<TransactionRecord, 'status' | 'errorCode' | 'stale'>): Variant {
  switch (r.status) {
    // stale on SUCCESS is the "alert" mode: the money did arrive, but the owner should look twice.
    case 'SUCCESS': return r.stale ? 'genuineStale' : 'genuine';
    case 'DUPLICATE': return 'duplicate';
    case 'AMOUNT_MISMATCH': return 'amount';
    case 'RECEIVER_MISMATCH': return r.errorCode === 'RECEIVER_UNVERIFIED' ? 'receiverUnverified' : 'wrongAccount';
    case 'FRAUD': return 'fake';
    case 'QUOTA_EXCEEDED': return 'quota';
    case 'PROVIDER_ERROR': return r.errorCode === 'SLIP_PENDING' ? 'pending' : 'retry';
    case 'INVALID':
      switch (r.errorCode) {
        case 'STALE_SLIP': return 'staleRejected';
        case 'NO_QR_FOUND': case 'UNREADABLE_IMAGE': case null: return 'noQr';
        case 'NOT_SLIP_QR': return 'notSlipQr';
        case 'BAD_CHECKSUM': return 'badChecksum';
        case 'UNKNOWN_BANK': return 'unknownBank';
        default: return 'invalid';
      }
    default: return 'retry';
  }
}

export interface Explanation {
  variant: Variant;
  tone: Tone;
  title: MessageKey;
  body: MessageKey;
  next: MessageKey;
  /** Extra line for a replayed record (same picture within 24 h). */
  notes: MessageKey[];
}

export function explainResult(r: Pick<TransactionRecord, 'status' | 'errorCode' | 'stale' | 'cached'>): Explanation {
  const variant = variantOf(r);
  const notes: MessageKey[] = [];
  if (r.cached) {
    notes.push('result.cached');
    // A replayed SUCCESS is the same money: crediting it again is the mistake to prevent.
    if (r.status === 'SUCCESS') notes.push('result.cachedPaid');
  }
  return {
    variant,
    tone: VARIANT_TONE[variant],
    title: `result.${variant}.title` as MessageKey,
    body: `result.${variant}.body` as MessageKey,
    next: `result.${variant}.next` as MessageKey,
    notes,
  };
}
