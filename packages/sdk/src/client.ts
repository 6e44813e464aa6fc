import { DEFAULT_MAX_IMAGE_BYTES, readImage, type ImageInput } from './image-body.js';
import { createTransport } from './http-transport.js';
import { amountQueryValue } from './money.js';
import type {
  Me,
  Quota,
  QuotaHeaders,
  QuotaSnapshot,
  TransactionFilters,
  TransactionListQuery,
  TransactionPage,
  TransactionRecord,
  VerifyResult,
} from './types.js';

export interface SlipcheckClientOptions {
  /** `sk_live_...` or `sk_test_...`. */
  apiKey: string;
  /** Includes the version prefix, e.g. `https://api.example.com/api/v1`. */
  baseUrl: string;
  /** Defaults to the global `fetch` of Node 20. */
  fetch?: typeof fetch | undefined;
  /** Retries after the first attempt (see README for which calls are retried). Default 3. */
  maxRetries?: number | undefined;
  /** Per attempt, including reading the answer. Default 60 000 ms. */
  timeoutMs?: number | undefined;
  /** A `Retry-After` longer than this is not waited for; the 429 is thrown instead. Default 60 000 ms. */
  maxRetryDelayMs?: number | undefined;
  /** Streams given to verify are buffered up to this size. Default 20 MiB. */
  maxImageBytes?: number | undefined;
  /**
   * How to wait between retries; tests replace it to avoid real delays. `signal` is the call's own:
   * the client stops waiting when it aborts whatever this function does.
   */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

export interface RequestOptions {
  signal?: AbortSignal | undefined;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number | undefined;
}

export interface VerifyOptions extends RequestOptions {
  /**
   * Amount in THB the slip must meet (the condition behind `AMOUNT_MISMATCH`). Best as the decimal
   * string of your price (`"8.20"`); a number is sent as the decimal JavaScript prints for it and
   * never rounded, so one with more than two decimals (`0.1 + 0.2`) throws a RangeError.
   */
  amount?: string | number | undefined;
  /** Your own reference (order id); lets you find the result again with `listTransactions({ clientRef })`. */
  clientRef?: string | undefined;
}

export interface SlipcheckClient {
  /** Quota headers of the most recent answer from any call (null before the first answer). */
  readonly lastQuota: QuotaHeaders | null;
  /** POST /api/v1/verify with the raw image bytes. */
  verify(image: ImageInput, opts?: VerifyOptions): Promise<VerifyResult>;
  /** GET /api/v1/quota (costs no quota). */
  quota(opts?: RequestOptions): Promise<Quota>;
  /** GET /api/v1/me (costs no quota). */
  me(opts?: RequestOptions): Promise<Me>;
  /** GET /api/v1/transactions: one page. */
  listTransactions(filters?: TransactionFilters, opts?: RequestOptions): Promise<TransactionPage>;
  /** Every item across all cursor pages, newest first, fetched page by page as you iterate. */
  transactions(filters?: Omit<TransactionFilters, 'cursor'>, opts?: RequestOptions): AsyncIterableIterator<TransactionRecord>;
  /** GET /api/v1/transactions/:id; 404 for an unknown id or another shop's record. */
  getTransaction(id: string, opts?: RequestOptions): Promise<TransactionRecord>;
}

// Clears its timer on abort, so an aborted call does not hold the process open for a Retry-After.
// Its abort listener goes when the wait ends, so a signal shared by many calls collects none.
const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const onAbort = () => clearTimeout(timer);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export function createSlipcheckClient(options: SlipcheckClientOptions): SlipcheckClient {
  if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
    throw new TypeError('apiKey is required');
  }
  let parsedBase: URL;
  try {
    parsedBase = new URL(options.baseUrl);
  } catch {
    throw new TypeError('baseUrl must be an absolute URL such as https://host/api/v1');
  }
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') throw new TypeError('no fetch implementation available');
  const maxRetries = options.maxRetries ?? 3;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new RangeError('maxRetries must be an integer >= 0');
  const maxImageBytes = options.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES;

  let lastQuota: QuotaHeaders | null = null;
  const transport = createTransport({
    apiKey: options.apiKey,
    baseUrl: parsedBase.toString(),
    fetch: fetchImpl,
    maxRetries,
    timeoutMs: options.timeoutMs ?? 60_000,
    maxRetryDelayMs: options.maxRetryDelayMs ?? 60_000,
    sleep: options.sleep ?? defaultSleep,
    onQuotaHeaders: (headers) => {
      lastQuota = headers;
    },
  });

  async function get<T>(path: string, opts: RequestOptions = {}, query?: Record<string, string | undefined>) {
    return transport.request<T>({ method: 'GET', path, query, retry: 'idempotent', ...opts });
  }

  async function listTransactions(filters: TransactionFilters = {}, opts?: RequestOptions): Promise<TransactionPage> {
    const { envelope, quotaHeaders } = await get<{ items: TransactionRecord[]; nextCursor: string | null }>(
      '/transactions',
      opts,
      transactionQuery(filters),
    );
    return { items: envelope.data.items ?? [], nextCursor: envelope.data.nextCursor ?? null, quotaHeaders };
  }

  return {
    get lastQuota() {
      return lastQuota;
    },

    async verify(image, opts = {}) {
      // Exactly the decimal the caller means, checked before any byte is sent.
      const amount = opts.amount === undefined ? undefined : amountQueryValue(opts.amount);
      const body = await readImage(image, maxImageBytes);
      const { envelope, quotaHeaders } = await transport.request<TransactionRecord>({
        method: 'POST',
        path: '/verify',
        query: {
          amount,
          clientRef: opts.clientRef,
        },
        body,
        contentType: 'application/octet-stream',
        retry: 'verify',
        signal: opts.signal,
        timeoutMs: opts.timeoutMs,
      });
      const record = envelope.data;
      return {
        ...record,
        quota: record.quota ?? quotaFromHeaders(quotaHeaders),
        meta: envelope.meta ?? { requestId: '', timestamp: '' },
        quotaHeaders,
      } as VerifyResult;
    },

    async quota(opts) {
      return (await get<Quota>('/quota', opts)).envelope.data;
    },

    async me(opts) {
      return (await get<Me>('/me', opts)).envelope.data;
    },

    listTransactions,

    async *transactions(filters = {}, opts) {
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (;;) {
        const page = await listTransactions({ ...filters, cursor }, opts);
        yield* page.items;
        if (!page.nextCursor) return;
        // A cursor that comes back twice would loop forever; stop loudly instead.
        if (seen.has(page.nextCursor)) throw new Error(`transactions: cursor ${page.nextCursor} repeated`);
        seen.add(page.nextCursor);
        cursor = page.nextCursor;
      }
    },

    async getTransaction(id, opts) {
      if (typeof id !== 'string' || id === '') throw new TypeError('id is required');
      return (await get<TransactionRecord>(`/transactions/${encodeURIComponent(id)}`, opts)).envelope.data;
    },
  };
}

/**
 * Every filter of GET /api/v1/transactions, by its query parameter name. The `satisfies` clauses and
 * the check below fail the build when this list and the OpenAPI document's parameters differ.
 */
export const TRANSACTION_FILTERS = [
  'status',
  'source',
  'transRef',
  'clientRef',
  'environment',
  'from',
  'to',
  'cursor',
  'limit',
] as const satisfies readonly (keyof TransactionListQuery)[];
// A parameter of the API that the list above lacks is a compile error here.
const everyFilterListed: Exclude<keyof TransactionListQuery, (typeof TRANSACTION_FILTERS)[number]> extends never ? true : never = true;
void everyFilterListed;

function transactionQuery(filters: TransactionFilters): Record<string, string | undefined> {
  if (filters.limit !== undefined && (!Number.isInteger(filters.limit) || filters.limit < 1 || filters.limit > 100)) {
    throw new RangeError('limit must be an integer from 1 to 100');
  }
  const query: Record<string, string | undefined> = {};
  for (const name of TRANSACTION_FILTERS) {
    const value = filters[name];
    query[name] = value instanceof Date ? value.toISOString() : value === undefined ? undefined : String(value);
  }
  return query;
}

function quotaFromHeaders(headers: QuotaHeaders | null): QuotaSnapshot | undefined {
  if (!headers || headers.used === null || headers.limit === null || headers.remaining === null) return undefined;
  return { used: headers.used, limit: headers.limit, remaining: headers.remaining };
}
