// Shared HTTP plumbing for checker adapters: a keep-alive fetch, a JSON POST that never
// throws, and the small normalisers every provider mapping needs.
import { randomBytes } from 'node:crypto';
import { Agent, interceptors, fetch as undiciFetch, type Dispatcher } from 'undici';
import { parseRetryAfterMs } from '../../lib/retry-after.js';
import type { ProxyType } from './checker-port.js';

export type FetchFn = typeof fetch;

export interface KeepAliveOptions {
  /** max sockets per origin; providers are few, slips are many */
  connections?: number;
  keepAliveTimeoutMs?: number;
}

/**
 * fetch bound to one undici Agent with keep-alive: a TLS handshake per slip would cost more
 * than the check itself. Returns the agent too so the owner can close it on shutdown.
 */
export function createKeepAliveFetch(opts: KeepAliveOptions = {}): { fetch: FetchFn; close(): Promise<void> } {
  const agent = new Agent({
    connections: opts.connections ?? 64,
    keepAliveTimeout: opts.keepAliveTimeoutMs ?? 30_000,
    keepAliveMaxTimeout: 60_000,
    // the per-attempt timeout lives in the resilient wrapper (AbortSignal); these are backstops
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
  });
  const f = ((input: unknown, init?: Record<string, unknown>) =>
    undiciFetch(input as string, { ...(init ?? {}), dispatcher: agent } as never)) as unknown as FetchFn;
  // send() below talks to this agent directly (undici's request(), redirects followed as fetch does).
  (f as KeepAliveFetch)[DIRECT] = agent.compose(interceptors.redirect({ maxRedirections: 20 }));
  return { fetch: f, close: () => agent.close() };
}

/**
 * The keep-alive fetch carries its agent: send() then calls undici's `request()` on it instead of
 * `fetch()`. Same connection pool, same request on the wire (method, headers, body, abort signal,
 * redirects), without the WHATWG Request/Response/stream objects fetch builds per call: 0.94 against
 * 0.37 ms of CPU per call measured alone, and fetch's garbage made the service run a major GC every
 * ~35 uncached verifies (docs/benchmarks.md, "Uncached verify: where the CPU went and what changed").
 * A fetch a test injects has no agent and is called as before (test/checker/checker-http.test.ts
 * holds both paths to the same outcomes).
 */
const DIRECT = Symbol('slipcheck.checkerDispatcher');
type KeepAliveFetch = FetchFn & { [DIRECT]?: Dispatcher };

export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** parsed JSON body, or null when the body is empty / not JSON / too large */
  json: unknown;
}

export type HttpOutcome = { ok: true; answer: HttpAnswer } | { ok: false; reason: string; aborted: boolean };

const MAX_BODY_BYTES = 1 << 20;

/** POST JSON; network failures come back as values so adapters can map them to UNAVAILABLE. */
export function postJson(
  fetchFn: FetchFn,
  url: string,
  body: unknown,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<HttpOutcome> {
  return send(fetchFn, url, 'POST', JSON.stringify(body), { 'content-type': 'application/json', ...headers }, signal);
}

/** GET (account and quota routes). */
export function getJson(fetchFn: FetchFn, url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<HttpOutcome> {
  return send(fetchFn, url, 'GET', undefined, headers, signal);
}

/**
 * POST multipart/form-data with one image file. The body is built here (not with FormData): the
 * keep-alive fetch is the `undici` package's and does not recognise Node's global FormData class,
 * which it would send as the text "[object FormData]". The image is only this request's body: never
 * written anywhere or kept.
 */
export function postImage(
  fetchFn: FetchFn,
  url: string,
  field: string,
  image: Buffer,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<HttpOutcome> {
  const boundary = `----slipcheck${randomBytes(12).toString('hex')}`;
  const png = image[0] === 0x89;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${png ? 'slip.png' : 'slip.jpg'}"\r\n` +
      `Content-Type: ${png ? 'image/png' : 'image/jpeg'}\r\n\r\n`,
  );
  const body = Buffer.concat([head, image, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return send(fetchFn, url, 'POST', body, { 'content-type': `multipart/form-data; boundary=${boundary}`, ...headers }, signal);
}

async function send(
  fetchFn: FetchFn,
  url: string,
  method: string,
  body: string | Buffer | undefined,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<HttpOutcome> {
  const direct = (fetchFn as KeepAliveFetch)[DIRECT];
  if (direct) return sendDirect(direct, url, method, body, headers, signal);
  try {
    const res = await fetchFn(url, {
      method,
      headers: { accept: 'application/json', ...headers },
      body: body as BodyInit | undefined,
      signal,
    });
    const json = jsonOrNull(await readCapped(res));
    return { ok: true, answer: { status: res.status, headers: res.headers, json } };
  } catch (err) {
    return failed(err, signal);
  }
}

/** A provider's body as JSON; an empty or non-JSON body is null (the adapter maps the status). */
function jsonOrNull(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A call that got no answer: aborted (our timeout or deadline) or a network failure, with its reason. */
function failed(err: unknown, signal?: AbortSignal): HttpOutcome {
  const aborted = signal?.aborted === true || (err as Error)?.name === 'AbortError';
  return { ok: false, aborted, reason: aborted ? 'aborted/timeout' : `network: ${(err as Error)?.message ?? String(err)}` };
}

// A checker calls a handful of endpoint URLs: each is parsed once (bounded, in case one carries a query).
const targets = new Map<string, { origin: string; path: string }>();
function target(url: string): { origin: string; path: string } {
  let t = targets.get(url);
  if (!t) {
    const u = new URL(url);
    t = { origin: u.origin, path: u.pathname + u.search };
    if (targets.size >= 100) targets.clear();
    targets.set(url, t);
  }
  return t;
}

/** send() over the agent's request(): the outcomes fetch gives (status, headers, capped JSON, network and abort reasons). */
async function sendDirect(
  dispatcher: Dispatcher,
  url: string,
  method: string,
  body: string | Buffer | undefined,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<HttpOutcome> {
  try {
    const { origin, path } = target(url);
    const res = await dispatcher.request({
      origin,
      path,
      method: method as Dispatcher.HttpMethod,
      // fetch's defaults that a provider may look at; the caller's headers win.
      headers: { 'user-agent': 'undici', accept: 'application/json', ...headers },
      body,
      signal,
    });
    const json = jsonOrNull(await readCappedBody(res));
    // Headers are built when an adapter reads them (a Retry-After, an error's details): most answers never do.
    let h: Headers | undefined;
    const raw = res.headers;
    const answer: HttpAnswer = {
      status: res.statusCode,
      json,
      get headers() {
        return (h ??= toHeaders(raw));
      },
    };
    return { ok: true, answer };
  } catch (err) {
    return failed(err, signal);
  }
}

function toHeaders(raw: Dispatcher.ResponseData['headers']): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(raw)) {
    for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) {
      try {
        h.append(k, x);
      } catch {
        // A value Headers refuses (a control character) is dropped: adapters read Retry-After and the like.
      }
    }
  }
  return h;
}

async function readCappedBody(res: Dispatcher.ResponseData): Promise<string> {
  const len = Number(res.headers['content-length'] ?? '0');
  if (len > MAX_BODY_BYTES) {
    res.body.destroy();
    return '';
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    if (total > MAX_BODY_BYTES) {
      res.body.destroy();
      return '';
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
}

async function readCapped(res: Response): Promise<string> {
  const len = Number(res.headers.get('content-length') ?? '0');
  if (len > MAX_BODY_BYTES) {
    await res.body?.cancel().catch(() => {});
    return '';
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      return '';
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Names from bank data are shown in chats, mails, webhooks and the dashboard. Control characters
 * and bidi controls (U+202E RIGHT-TO-LEFT OVERRIDE and friends) can make "Somchai" render as
 * something else or break a line: removed once here, where bank data enters, so every channel gets
 * the same clean text. Runs of whitespace collapse; an empty result is null.
 */
const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
export function cleanBankText(v: string | null | undefined): string | null {
  if (typeof v !== 'string') return null;
  const s = v.replace(UNSAFE_TEXT, '').replace(/\s+/g, ' ').trim();
  return s || null;
}

/** A FOUND slip with its parties' names cleaned (see cleanBankText). */
export function cleanSlipNames<
  T extends { sender: { name: string; nameEn?: string | null }; receiver: { name: string; nameEn?: string | null } },
>(slip: T): T {
  const party = <P extends { name: string; nameEn?: string | null }>(p: P): P => ({
    ...p,
    name: cleanBankText(p.name) ?? '',
    nameEn: cleanBankText(p.nameEn),
  });
  return { ...slip, sender: party(slip.sender), receiver: party(slip.receiver) };
}

export function str(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

/** ISO 8601 date and time, optional seconds and fraction, optional zone (Z, +07:00, +0700, +07). */
const ISO_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Provider dates to ISO 8601 UTC, or null. The documents give ISO 8601 with +07:00 (EasySlip) or Z
 * (SlipOK transTimestamp). Two readings are ours to choose, both the safe one:
 * - no zone ("2026-01-01T23:30:00"): Thai time, as every date these providers document is. Date.parse
 *   would read it in the server's own zone, seven hours off on a UTC host.
 * - anything that is not ISO 8601 ("01/02/2026 10:00": 1 February in Thailand, 2 January to
 *   Date.parse; a date without a time) is not guessed: null, so the answer is not a confirmed slip.
 */
export function toUtcIso(v: unknown): string | null {
  const s = str(v)?.trim();
  if (!s) return null;
  const m = ISO_DATE_TIME.exec(s);
  if (!m) return null;
  const [, day, hm, sec = '00', frac = '', zone] = m;
  const z = !zone ? '+07:00' : zone.toUpperCase() === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.length === 3 ? '00' : zone.slice(-2)}`;
  const t = Date.parse(`${day}T${hm}:${sec}${frac ? `.${frac.slice(0, 3).padEnd(3, '0')}` : ''}${z}`);
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
}

/**
 * A provider's amount (baht, as the documents give it: a JSON number), or null. A plain decimal
 * string ("1234.56") is accepted too. Anything else, null and "" above all, is null: `Number(null)`
 * and `Number("")` are 0, and a missing amount once read as a 0.00 transfer. The pipeline turns the
 * number into integer satang through its decimal text (satangFromAmount), never `x * 100`.
 */
export function providerAmount(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? v : null;
  if (typeof v === 'string' && /^\s*\d{1,13}(\.\d+)?\s*$/.test(v)) return Number(v);
  return null;
}

/**
 * Whether a provider's account type names a bank account. Both document the types BANKAC, TOKEN and
 * DUMMY and explain none; only BANKAC is a bank account, so a TOKEN or DUMMY number is not compared
 * with the shop's account digits (a dummy number ending like the shop's must not pay the shop).
 * An absent or empty type keeps the number (older answers carry none).
 */
export function isBankAccountType(type: unknown): boolean {
  const t = (str(type) ?? '').trim().toUpperCase();
  return t !== 'TOKEN' && t !== 'DUMMY';
}

/** Bank codes are 3 digits ("4" -> "004"); anything else is passed through trimmed. */
export function bankCode(v: unknown): string | null {
  const s = str(v)?.trim();
  if (!s) return null;
  return /^\d{1,3}$/.test(s) ? s.padStart(3, '0') : s;
}

/** Map the ITMX-style proxy types providers echo (MSISDN, NATID, EWALLETID...) onto the port's. */
export function proxyType(v: unknown): ProxyType {
  const s = (str(v) ?? '').toUpperCase();
  if (s === 'MSISDN' || s === 'PHONE' || s === 'MOBILE') return 'PHONE';
  if (s === 'NATID' || s === 'NATIONAL_ID' || s === 'TAXID') return 'NATID';
  if (s === 'EWALLETID' || s === 'EWALLET') return 'EWALLET';
  if (s === 'EMAIL') return 'EMAIL';
  return 'OTHER';
}

/** Retry-After in whole seconds, at most an hour (a PENDING hint, not a promise); unreadable -> fallback. */
export function retryAfterSeconds(headers: Headers, fallback: number): number {
  const ms = parseRetryAfterMs(headers.get('retry-after'), Date.now(), 3_600_000);
  return ms === null ? fallback : Math.ceil(ms / 1000);
}

export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}
