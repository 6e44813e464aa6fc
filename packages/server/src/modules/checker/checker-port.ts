// The checker port: the one question the pipeline asks an external slip checker.
// Adapters (sandbox bank, real providers) and wrappers (timeout/retry/breaker/failover)
// all implement `Checker`; callers never test which one is behind it.

/** Which layout the slip QR has: a bank transfer or a TrueMoney wallet slip (slip-qr parser). */
export type SlipKind = 'BANK' | 'TRUEMONEY';

export interface CheckerQuery {
  payload: string;
  bankCode: string;
  transRef: string;
  /** absent = BANK */
  kind?: SlipKind;
  /**
   * The slip image, for a provider that verifies some kinds only from the image (TrueMoney on one of
   * them). It lives in this call's memory only: adapters send it to the provider and never keep, log
   * or put it in a result or reason.
   */
  image?: Buffer;
}

/**
 * Bounded `reason` of a provider account problem (metric label, alert, /health). Each adapter maps
 * its provider's documented codes onto these; the provider's own code travels in `providerCode`.
 */
export const ACCOUNT_REASONS = [
  'quota_exhausted',
  'key_invalid',
  'ip_not_allowed',
  'package_expired',
  'branch_inactive',
  'service_suspended',
  'overage_cap',
] as const;
export type AccountReason = (typeof ACCOUNT_REASONS)[number];

export type ProxyType = 'PHONE' | 'NATID' | 'EWALLET' | 'EMAIL' | 'OTHER';

export interface BankParty {
  name: string;
  nameEn?: string | null;
  /** masked as the bank shows it, e.g. "xxx-x-x6660-x" */
  account?: string | null;
  proxy?: { type: ProxyType; value: string } | null;
  bankCode?: string | null;
}

export interface BankSlip {
  transRef: string;
  amount: number;
  /** ISO 8601 UTC */
  transDate: string;
  sendingBankCode: string;
  receivingBankCode: string | null;
  sender: BankParty;
  receiver: BankParty;
}

/**
 * Sending banks that publish transfers to the bank-data services minutes after the transfer: Bangkok
 * Bank (002) and SCB (014), per SlipOK's documented 1010 answer ("a slip from {bank}: wait about {n}
 * minutes"). A provider without such an answer says "not found" for a genuine slip sent at once.
 */
export const LATE_PUBLISHING_BANKS: ReadonlySet<string> = new Set(['002', '014']);

export type CheckerResult =
  | { kind: 'FOUND'; slip: BankSlip }
  /**
   * no such transfer / forged -> FRAUD (charged: the checker answered). The pipeline first asks the
   * slip's own data whether it is simply too old for the bank to confirm (then INVALID STALE_SLIP).
   */
  | {
      kind: 'NOT_FOUND';
      /**
       * The provider has no "not published yet" answer, and the sending bank is one that publishes
       * transfers minutes late: a slip sent right after the transfer may be genuine (see
       * LATE_PUBLISHING_BANKS). The pipeline answers SLIP_PENDING while the reference is new to the shop.
       */
      mayBeUnpublished?: boolean;
    }
  /**
   * This provider cannot check this kind of slip (documented "not a payment QR", no image for an
   * image-only endpoint...): the failover chain asks the next provider; when none can, the pipeline
   * answers INVALID CHECK_NOT_SUPPORTED, uncharged. Never FRAUD.
   */
  | { kind: 'UNSUPPORTED'; reason: string }
  /** bank publishes late -> PROVIDER_ERROR + SLIP_PENDING (not charged) */
  | { kind: 'PENDING'; retryAfterSeconds: number }
  /**
   * timeout, 5xx, breaker open, bad credentials... -> PROVIDER_ERROR (not charged).
   * `reason` is internal only (debug logs); it may name the provider, so never show it to users.
   * `retryable` tells the retry wrapper whether another attempt at the same upstream can help
   * (network error, timeout, 5xx: yes; 401/403/429, breaker open: no). Absent means yes.
   */
  | {
      kind: 'UNAVAILABLE';
      reason: string;
      retryable?: boolean;
      /** set when the provider says the account is the problem: fail over at once, alert the operator */
      account?: AccountReason;
      /** the provider's own error code (operator logs only; never shown to shops) */
      providerCode?: string;
      /** the provider's own "come back in" hint (e.g. bank data down for about 15 minutes) */
      retryAfterSeconds?: number;
      /** the attempt ran out of time: the provider may still have done (and charged) the check */
      timeout?: boolean;
    };

export interface CheckOptions {
  signal?: AbortSignal;
}

export interface Checker {
  readonly id: string;
  /** slip kinds this checker can verify; absent = every kind. The failover chain skips the others. */
  readonly supports?: readonly SlipKind[];
  check(q: CheckerQuery, opts?: CheckOptions): Promise<CheckerResult>;
}

export function unavailable(reason: string, retryable = true): CheckerResult {
  return { kind: 'UNAVAILABLE', reason, retryable };
}

export function accountError(reason: AccountReason, providerCode: string, detail: string): CheckerResult {
  return { kind: 'UNAVAILABLE', reason: detail, retryable: false, account: reason, providerCode };
}

export function unsupported(reason: string): CheckerResult {
  return { kind: 'UNSUPPORTED', reason };
}
