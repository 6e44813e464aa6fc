// Resource shapes of the public REST API (/api/v1). Where the spec lists values as "not shown",
// the union is left open with `(string & {})` so new values do not break integrators' builds.

export type TransactionStatus =
  | 'SUCCESS'
  | 'DUPLICATE'
  | 'AMOUNT_MISMATCH'
  | 'RECEIVER_MISMATCH'
  | 'INVALID'
  | 'FRAUD'
  | 'QUOTA_EXCEEDED'
  | 'PROVIDER_ERROR';

export type TransactionSource = 'API' | 'LINE' | 'DASHBOARD';
export type KeyEnvironment = 'live' | 'test';
export type ApiScope = 'verify' | 'read' | 'webhook' | (string & {});

/** The `quota` object carried by verify answers and 402 error bodies. */
export interface QuotaSnapshot {
  used: number;
  limit: number;
  remaining: number;
}

/** The four `X-Service-Quota-*` headers every answer carries; a field is null when its header is absent. */
export interface QuotaHeaders {
  limit: number | null;
  used: number | null;
  remaining: number | null;
  resetDays: number | null;
}

export interface TransactionRecord {
  id: string;
  status: TransactionStatus;
  /** True only when status is SUCCESS. Never credit on this alone: see README. */
  verified: boolean;
  transRef: string;
  amount: number;
  bankCode: string;
  bankName: string;
  senderName: string;
  /** Masked. */
  senderAccount: string;
  receiverName: string;
  /** Masked. */
  receiverAccount: string;
  /** ISO 8601 UTC bank time on the slip. */
  transDate: string;
  /** e.g. `STALE_SLIP`, `NO_PAYEE_CONFIGURED`. */
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: string;
  /** This transRef was already verified successfully earlier. */
  duplicate: boolean;
  /** The same image was sent within 24 h; this is the earlier record, no quota was used. */
  cached: boolean;
  latencyMs: number;
  environment: KeyEnvironment;
  /** Present on verify answers (quota after the call); list items may omit it. */
  quota?: QuotaSnapshot;
  /** The `clientRef` given to verify, if any. */
  clientRef?: string | null;
  source?: TransactionSource;
}

export interface VerifyMeta {
  requestId: string;
  /** ISO 8601 with a UTC offset. */
  timestamp: string;
}

/** What `client.verify()` resolves to: the record, the envelope's meta, and the quota headers of this answer. */
export interface VerifyResult extends TransactionRecord {
  quota: QuotaSnapshot;
  meta: VerifyMeta;
  quotaHeaders: QuotaHeaders | null;
}

export interface Quota {
  used: number;
  limit: number;
  remaining: number;
  percentUsed: number;
  allowOverage: boolean;
  planCode: string;
  /** `YYYY-MM`. */
  periodMonth: string;
  daysUntilReset: number;
}

export interface PayeeAccount {
  bankCode: string;
  kind: 'BANK' | (string & {});
  holder: string;
  /** Only the last 4 characters; the full number is never returned. */
  accountLast4: string;
  isPrimary: boolean;
  status: 'ACTIVE' | (string & {});
}

export interface Me {
  shop: { id: string; name: string };
  apiKey: {
    name: string;
    prefix: string;
    environment: KeyEnvironment;
    scopes: ApiScope[];
    lastUsedAt: string;
    createdAt: string;
  };
  plan: { code: 'TRIAL' | (string & {}); name: string };
  quota: Quota & { overage: number };
  /** `used` is null when test usage cannot be measured; a test key then draws on the normal quota. */
  testQuota: { used: number | null; limit: number; remaining: number };
  rateLimit: { perKeyPerMinute: number; verifyPerMinute: number };
  payeeAccounts: PayeeAccount[];
}

export interface TransactionFilters {
  status?: TransactionStatus | (string & {});
  source?: TransactionSource | (string & {});
  transRef?: string;
  /** The `clientRef` you passed to verify: finds the result of a verify whose answer was lost. */
  clientRef?: string;
  /** ISO 8601 string or Date. */
  from?: string | Date;
  to?: string | Date;
  cursor?: string;
  /** 1 to 100, default 50 on the server. */
  limit?: number;
}

export interface TransactionPage {
  items: TransactionRecord[];
  /** null when there are no more pages. */
  nextCursor: string | null;
  quotaHeaders: QuotaHeaders | null;
}

export interface SuccessEnvelope<T> {
  success: true;
  data: T;
  meta?: VerifyMeta;
}

export interface ErrorEnvelope {
  success: false;
  error: string;
  message: string;
  statusCode: number;
  path: string;
  requestId: string;
  timestamp: string;
  code?: string;
  quota?: QuotaSnapshot;
}
