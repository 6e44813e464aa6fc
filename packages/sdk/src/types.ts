// Resource shapes of the public REST API (/api/v1). Where the spec lists values as "not shown",
// the union is left open with `(string & {})` so new values do not break integrators' builds.

import type { components, operations } from './api-types.gen.js';

/** Response shapes generated from the service's OpenAPI document (`api-types.gen.ts`): one source. */
type Schemas = components['schemas'];

export type TransactionStatus = Schemas['TransactionRecord']['status'];
export type TransactionSource = Schemas['TransactionRecord']['source'];
export type KeyEnvironment = Schemas['TransactionRecord']['environment'];
export type ApiScope = 'verify' | 'read' | 'webhook' | (string & {});

/** The `quota` object carried by verify answers and 402 error bodies. */
export type QuotaSnapshot = Schemas['VerifyRecord']['quota'];

/** The four `X-Service-Quota-*` headers every answer carries; a field is null when its header is absent. */
export interface QuotaHeaders {
  limit: number | null;
  used: number | null;
  remaining: number | null;
  resetDays: number | null;
}

/**
 * One verification result. Fields the slip did not give are null: an INVALID or unreadable slip has
 * no `transRef` or `amount`. `verified` is true only when status is SUCCESS; never credit on it alone
 * (see README). `cached`: the same image within 24 h, this is the earlier record and no quota was used.
 */
export type TransactionRecord = Schemas['TransactionRecord'] & {
  /** Present on verify answers (quota after the call); list items omit it. */
  quota?: QuotaSnapshot | undefined;
};

export interface VerifyMeta {
  requestId: string;
  /** ISO 8601 with a UTC offset. */
  timestamp: string;
}

/** What `client.verify()` resolves to: the record, the envelope's meta, and the quota headers of this answer. */
export type VerifyResult = Schemas['VerifyRecord'] & {
  meta: VerifyMeta;
  quotaHeaders: QuotaHeaders | null;
};

export type Quota = Schemas['Quota'];
export type Me = Schemas['Me'];
export type PayeeAccount = Me['payeeAccounts'][number];

/** The query parameters of GET /api/v1/transactions, as the OpenAPI document declares them (generated). */
export type TransactionListQuery = NonNullable<operations['listTransactions']['parameters']['query']>;

/**
 * Filters of `listTransactions`: every query parameter the API has (its keys are the generated
 * query's keys: a filter added to the API and missing here fails the SDK's build; `TRANSACTION_FILTERS`
 * lists them at run time), with friendlier value types where they help.
 */
export type TransactionFilters = {
  [K in keyof TransactionListQuery]?: K extends keyof TransactionFilterValues
    ? TransactionFilterValues[K]
    : TransactionListQuery[K] | undefined;
};
interface TransactionFilterValues {
  /** One status or a comma list. */
  status: TransactionStatus | (string & {}) | undefined;
  /** `API`, `LINE` or `DASHBOARD` (or a comma list). */
  source: TransactionSource | (string & {}) | undefined;
  transRef: string | undefined;
  /** The `clientRef` you passed to verify: finds the result of a verify whose answer was lost. */
  clientRef: string | undefined;
  /** `live` or `test`: the records of that key environment. Default: the environment of the key making the call. */
  environment: KeyEnvironment | undefined;
  /** ISO 8601 string or Date (on `createdAt`, inclusive). */
  from: string | Date | undefined;
  to: string | Date | undefined;
  /** The `nextCursor` of the previous page. */
  cursor: string | undefined;
  /** 1 to 100, default 50 on the server. */
  limit: number | undefined;
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

export type ErrorEnvelope = Schemas['ErrorEnvelope'];
