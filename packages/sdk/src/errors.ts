import { ERROR_CODES, QUOTA_REASONS, type ErrorCode, type QuotaReason } from './error-codes.js';
import type { QuotaHeaders, QuotaSnapshot } from './types.js';

// Used when the error body carries no `code` (the spec only defines codes for 402 and some 403s),
// so callers can always switch on `err.code`.
const CODE_BY_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_ENTITY',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

export function codeForStatus(status: number): string {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? 'SERVER_ERROR' : `HTTP_${status}`);
}

/** A 402's `firstUse`: the earlier SUCCESS of the transfer the refused picture re-uses. */
export interface FirstUse {
  transactionId: string;
  /** THB (satang as decimals), null when the record has none. */
  amount: number | null;
  /** ISO 8601 UTC. */
  createdAt: string;
}

/**
 * Codes whose catalogue words are the dashboard's and mean something else from the API, which is all
 * this SDK calls: there a 401 is the API key (wrong, revoked, or missing), not a session to sign in to
 * again, and the README shows `meaning('th')` to shop staff.
 */
const API_MEANINGS = {
  UNAUTHORIZED: {
    th: 'API key ไม่ถูกต้องหรือถูกยกเลิกแล้ว ให้เจ้าของร้านสร้าง key ใหม่ในหน้าตั้งค่า API',
    en: 'The API key is wrong or has been revoked; the shop owner creates a new one in the API key settings.',
  },
} as const;

export interface SlipcheckApiErrorInit {
  statusCode: number;
  code: string;
  message: string;
  requestId: string | null;
  quota: QuotaSnapshot | null;
  quotaHeaders: QuotaHeaders | null;
  retryAfterSeconds: number | null;
  method: string;
  path: string;
  body: unknown;
}

/** The service answered with a non-2xx status (after any retries the client made). */
export class SlipcheckApiError extends Error {
  override readonly name = 'SlipcheckApiError';
  readonly statusCode: number;
  /**
   * From the body (`QUOTA_EXCEEDED`, `TEST_QUOTA_EXCEEDED`, `PLAN_API_ACCESS_REQUIRED`, ...: one of
   * `ERROR_CODES`) or derived from the status. Typed so an editor lists the known codes; a newer
   * service may send one this SDK does not know yet.
   */
  readonly code: ErrorCode | (string & {});
  readonly requestId: string | null;
  /** The 402 body's quota (used, limit, remaining); null otherwise. */
  readonly quota: QuotaSnapshot | null;
  readonly quotaHeaders: QuotaHeaders | null;
  /** Seconds from `Retry-After`, when the answer carried it (429). */
  readonly retryAfterSeconds: number | null;
  readonly method: string;
  readonly path: string;
  /** The parsed error body (or its text when it was not JSON). */
  readonly body: unknown;

  /** Why a 402 was answered: `TRIAL_ENDED`, `MONTHLY_QUOTA` or `TEST_CAP`; null for other answers (and older services). */
  get reason(): QuotaReason | null {
    const r = (this.body as { reason?: unknown } | null)?.reason;
    return this.statusCode === 402 && (QUOTA_REASONS as readonly unknown[]).includes(r) ? (r as QuotaReason) : null;
  }

  /**
   * On a verify's 402 for a picture of a transfer this shop already credited: that transfer's first
   * use (its SUCCESS record's id, amount in THB and when it was verified). The slip is being re-used:
   * do not hand over goods for it. Null otherwise (and from older services).
   */
  get firstUse(): FirstUse | null {
    const f = (this.body as { firstUse?: Partial<FirstUse> } | null)?.firstUse;
    if (this.statusCode !== 402 || !f || typeof f.transactionId !== 'string' || typeof f.createdAt !== 'string') return null;
    return { transactionId: f.transactionId, amount: typeof f.amount === 'number' ? f.amount : null, createdAt: f.createdAt };
  }

  /** The code's meaning in Thai or English from the catalogue; the server's message for a code this SDK does not know. */
  meaning(lang: 'th' | 'en'): string {
    if (Object.hasOwn(API_MEANINGS, this.code)) return API_MEANINGS[this.code as keyof typeof API_MEANINGS][lang];
    return Object.hasOwn(ERROR_CODES, this.code) ? ERROR_CODES[this.code as ErrorCode][lang] : this.message;
  }

  constructor(init: SlipcheckApiErrorInit) {
    super(init.message);
    this.statusCode = init.statusCode;
    this.code = init.code;
    this.requestId = init.requestId;
    this.quota = init.quota;
    this.quotaHeaders = init.quotaHeaders;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.method = init.method;
    this.path = init.path;
    this.body = init.body;
  }
}

export type SlipcheckConnectionErrorCode = 'TIMEOUT' | 'NETWORK_ERROR';

/**
 * No HTTP answer was received (timeout, connection reset, DNS ...). For verify the slip may or may
 * not have been checked: `advice` says how to find out safely.
 */
export class SlipcheckConnectionError extends Error {
  override readonly name = 'SlipcheckConnectionError';
  constructor(
    readonly code: SlipcheckConnectionErrorCode,
    message: string,
    readonly method: string,
    readonly path: string,
    /** True when the request may have reached the service (anything but a refused connection). */
    readonly mayHaveBeenProcessed: boolean,
    readonly advice: string | null,
    options?: { cause?: unknown },
  ) {
    super(advice ? `${message} ${advice}` : message, options);
  }
}

export const VERIFY_LOST_ANSWER_ADVICE =
  'The slip may or may not have been checked. Re-sending the same image is safe: within 24 h the service returns ' +
  'the earlier record (cached: true) without using quota. Or look it up without re-sending: ' +
  'listTransactions({ clientRef }) when you passed a clientRef.';
