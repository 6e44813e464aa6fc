import { SlipcheckApiError, SlipcheckConnectionError, VERIFY_LOST_ANSWER_ADVICE, codeForStatus } from './errors.js';
import type { ErrorEnvelope, QuotaHeaders, QuotaSnapshot, SuccessEnvelope } from './types.js';

export const SDK_VERSION = '0.1.0';

/**
 * `idempotent`: GETs; retried on network errors, timeouts, 429 and every 5xx.
 * `verify`: retried only when the answer proves no check happened or a re-check is harmless
 * (429, 503) or the connection was refused; never after a timeout or another answer.
 */
export type RetryPolicy = 'idempotent' | 'verify';

export interface TransportConfig {
  apiKey: string;
  baseUrl: string;
  fetch: typeof fetch;
  maxRetries: number;
  timeoutMs: number;
  maxRetryDelayMs: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  onQuotaHeaders: (headers: QuotaHeaders) => void;
}

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | undefined> | undefined;
  body?: Uint8Array | undefined;
  contentType?: string | undefined;
  retry: RetryPolicy;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
}

export interface TransportResult<T> {
  envelope: SuccessEnvelope<T>;
  quotaHeaders: QuotaHeaders | null;
  status: number;
}

const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;

interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
}

export function createTransport(config: TransportConfig) {
  const baseUrl = config.baseUrl.replace(/\/+$/, '');

  async function send(spec: RequestSpec, url: string): Promise<RawAnswer> {
    const controller = new AbortController();
    const timeoutMs = spec.timeoutMs ?? config.timeoutMs;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onUserAbort = () => controller.abort(spec.signal?.reason);
    spec.signal?.addEventListener('abort', onUserAbort, { once: true });
    try {
      // An 'abort' listener added to an already aborted signal never fires: check before sending.
      spec.signal?.throwIfAborted();
      const headers: Record<string, string> = {
        authorization: `Bearer ${config.apiKey}`,
        accept: 'application/json',
        'user-agent': `slipcheck-sdk-node/${SDK_VERSION} node/${process.versions.node}`,
      };
      if (spec.contentType) headers['content-type'] = spec.contentType;
      const res = await config.fetch(url, {
        method: spec.method,
        headers,
        // Node's fetch takes any Uint8Array; the lib type only narrows on the buffer kind.
        body: (spec.body ?? null) as BodyInit | null,
        signal: controller.signal,
      });
      // Read the body under the same timeout: a stalled body is as lost as a stalled connect.
      const text = await res.text();
      return { status: res.status, headers: res.headers, text };
    } catch (err) {
      if (spec.signal?.aborted) throw spec.signal.reason ?? err;
      throw toConnectionError(err, timedOut ? timeoutMs : null, spec);
    } finally {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onUserAbort);
    }
  }

  async function request<T>(spec: RequestSpec): Promise<TransportResult<T>> {
    spec.signal?.throwIfAborted();
    const url = buildUrl(baseUrl, spec.path, spec.query);
    for (let attempt = 0; ; attempt++) {
      let answer: RawAnswer;
      try {
        answer = await send(spec, url);
      } catch (err) {
        const retryable = err instanceof SlipcheckConnectionError && (spec.retry === 'idempotent' || !err.mayHaveBeenProcessed);
        if (retryable && attempt < config.maxRetries) {
          await sleepUnlessAborted(config.sleep, backoffMs(attempt), spec.signal);
          continue;
        }
        throw err;
      }

      const quotaHeaders = parseQuotaHeaders(answer.headers);
      if (quotaHeaders) config.onQuotaHeaders(quotaHeaders);

      if (answer.status >= 200 && answer.status < 300) {
        return { envelope: parseSuccess<T>(answer, spec, baseUrl), quotaHeaders, status: answer.status };
      }

      const error = toApiError(answer, spec, quotaHeaders);
      if (attempt < config.maxRetries && isRetryableStatus(spec.retry, answer.status)) {
        const delay = error.retryAfterSeconds !== null ? error.retryAfterSeconds * 1000 : backoffMs(attempt);
        // A Retry-After beyond the cap is handed to the caller rather than retried early into another 429.
        if (delay <= config.maxRetryDelayMs) {
          await sleepUnlessAborted(config.sleep, delay, spec.signal);
          continue;
        }
      }
      throw error;
    }
  }

  return { request };
}

/**
 * Waits before a retry, but rejects with the caller's reason the moment its signal aborts: the wait
 * can be a Retry-After of up to `maxRetryDelayMs`, and a retry sent after the caller gave up would
 * check a slip nobody waits for any more.
 */
async function sleepUnlessAborted(
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (!signal) return sleep(ms);
  signal.throwIfAborted();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([sleep(ms, signal), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
  signal.throwIfAborted();
}

function isRetryableStatus(policy: RetryPolicy, status: number): boolean {
  if (status === 429) return true; // rejected by the rate limiter before any work
  if (policy === 'verify') return status === 503;
  return status >= 500;
}

function backoffMs(attempt: number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

function buildUrl(baseUrl: string, path: string, query?: Record<string, string | undefined>): string {
  const url = `${baseUrl}${path}`;
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, value);
  }
  const qs = params.toString();
  return qs ? `${url}?${qs}` : url;
}

const REFUSED_CODES = new Set(['ECONNREFUSED']);

function causeCode(err: unknown): string | undefined {
  const cause = (err as { cause?: { code?: unknown; errors?: Array<{ code?: unknown }> } })?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  const inner = cause?.errors?.[0]?.code;
  return typeof inner === 'string' ? inner : undefined;
}

function toConnectionError(err: unknown, timedOutAfterMs: number | null, spec: RequestSpec): SlipcheckConnectionError {
  const isVerify = spec.retry === 'verify';
  if (timedOutAfterMs !== null) {
    return new SlipcheckConnectionError(
      'TIMEOUT',
      `${spec.method} ${spec.path} got no complete answer within ${timedOutAfterMs} ms.`,
      spec.method,
      spec.path,
      true,
      isVerify ? VERIFY_LOST_ANSWER_ADVICE : null,
      { cause: err },
    );
  }
  const code = causeCode(err);
  const refused = code !== undefined && REFUSED_CODES.has(code);
  return new SlipcheckConnectionError(
    'NETWORK_ERROR',
    `${spec.method} ${spec.path} failed without an answer${code ? ` (${code})` : ''}.`,
    spec.method,
    spec.path,
    !refused,
    isVerify && !refused ? VERIFY_LOST_ANSWER_ADVICE : null,
    { cause: err },
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Why a 2xx is not the API's: most often a baseUrl without the /api/v1 prefix, whose GETs reach the
 * service's dashboard page (200, text/html); else a proxy or captive portal answered.
 */
function notTheApi(answer: RawAnswer, spec: RequestSpec, baseUrl: string): string {
  const type = answer.headers.get('content-type')?.split(';')[0]?.trim() || 'no Content-Type';
  const said = `${spec.method} ${spec.path} answered ${answer.status} with ${type}, not the API's JSON success envelope`;
  if (!/\/api\/v1$/.test(new URL(baseUrl).pathname)) return `${said}: baseUrl must include the API prefix /api/v1 (${baseUrl}/api/v1).`;
  return `${said} (a proxy or captive portal in between may have answered).`;
}

function parseSuccess<T>(answer: RawAnswer, spec: RequestSpec, baseUrl: string): SuccessEnvelope<T> {
  const body = parseJson(answer.text) as SuccessEnvelope<T> | undefined;
  if (!body || typeof body !== 'object' || body.success !== true || !('data' in body)) {
    throw new SlipcheckApiError({
      statusCode: answer.status,
      code: 'INVALID_RESPONSE',
      message: notTheApi(answer, spec, baseUrl),
      requestId: answer.headers.get('x-request-id'),
      quota: null,
      quotaHeaders: parseQuotaHeaders(answer.headers),
      retryAfterSeconds: null,
      method: spec.method,
      path: spec.path,
      body: answer.text.slice(0, 2_000),
    });
  }
  return body;
}

function toApiError(answer: RawAnswer, spec: RequestSpec, quotaHeaders: QuotaHeaders | null): SlipcheckApiError {
  const parsed = parseJson(answer.text);
  const body = (parsed && typeof parsed === 'object' ? parsed : {}) as Partial<ErrorEnvelope>;
  const message =
    typeof body.message === 'string' && body.message ? body.message : `${spec.method} ${spec.path} failed with HTTP ${answer.status}`;
  return new SlipcheckApiError({
    statusCode: answer.status,
    code: typeof body.code === 'string' && body.code ? body.code : codeForStatus(answer.status),
    message,
    requestId: typeof body.requestId === 'string' ? body.requestId : answer.headers.get('x-request-id'),
    quota: isQuotaSnapshot(body.quota) ? body.quota : null,
    quotaHeaders,
    retryAfterSeconds: parseRetryAfter(answer.headers.get('retry-after')),
    method: spec.method,
    path: spec.path,
    body: parsed ?? answer.text.slice(0, 2_000),
  });
}

function isQuotaSnapshot(value: unknown): value is QuotaSnapshot {
  const q = value as QuotaSnapshot | undefined;
  return !!q && typeof q === 'object' && typeof q.used === 'number' && typeof q.limit === 'number';
}

/** `Retry-After` as delta-seconds or an HTTP date, in seconds (never negative); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

function headerInt(headers: Headers, name: string): number | null {
  const raw = headers.get(name);
  if (raw === null || raw.trim() === '') return null;
  const n = Number(raw);
  return Number.isFinite(n) ? n : null;
}

export function parseQuotaHeaders(headers: Headers): QuotaHeaders | null {
  const q: QuotaHeaders = {
    limit: headerInt(headers, 'x-service-quota-limit'),
    used: headerInt(headers, 'x-service-quota-used'),
    remaining: headerInt(headers, 'x-service-quota-remaining'),
    resetDays: headerInt(headers, 'x-service-quota-reset-days'),
  };
  return q.limit === null && q.used === null && q.remaining === null && q.resetDays === null ? null : q;
}
