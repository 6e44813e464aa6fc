// The checker port: the one question the pipeline asks an external slip checker.
// Adapters (sandbox bank, real providers) and wrappers (timeout/retry/breaker/failover)
// all implement `Checker`; callers never test which one is behind it.

export interface CheckerQuery {
  payload: string;
  bankCode: string;
  transRef: string;
}

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

export type CheckerResult =
  | { kind: 'FOUND'; slip: BankSlip }
  /** no such transfer / forged -> FRAUD (charged: the checker answered) */
  | { kind: 'NOT_FOUND' }
  /** bank publishes late -> PROVIDER_ERROR + SLIP_PENDING (not charged) */
  | { kind: 'PENDING'; retryAfterSeconds: number }
  /**
   * timeout, 5xx, breaker open, bad credentials... -> PROVIDER_ERROR (not charged).
   * `reason` is internal only (debug logs); it may name the provider, so never show it to users.
   * `retryable` tells the retry wrapper whether another attempt at the same upstream can help
   * (network error, timeout, 5xx: yes; 401/403/429, breaker open: no). Absent means yes.
   */
  | { kind: 'UNAVAILABLE'; reason: string; retryable?: boolean };

export interface CheckOptions {
  signal?: AbortSignal;
}

export interface Checker {
  readonly id: string;
  check(q: CheckerQuery, opts?: CheckOptions): Promise<CheckerResult>;
}

export function unavailable(reason: string, retryable = true): CheckerResult {
  return { kind: 'UNAVAILABLE', reason, retryable };
}
