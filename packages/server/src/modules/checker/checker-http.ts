// Shared HTTP plumbing for checker adapters: a keep-alive fetch, a JSON POST that never
// throws, and the small normalisers every provider mapping needs.
import { Agent, fetch as undiciFetch } from 'undici';
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
  return { fetch: f, close: () => agent.close() };
}

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
 * POST multipart/form-data with one image file (fetch sets the boundary). The image is wrapped, not
 * copied to disk or kept: it is only the request body of this one call.
 */
export function postImage(
  fetchFn: FetchFn,
  url: string,
  field: string,
  image: Buffer,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<HttpOutcome> {
  const form = new FormData();
  const type = image[0] === 0x89 ? 'image/png' : 'image/jpeg';
  form.append(field, new Blob([image as unknown as ArrayBuffer], { type }), type === 'image/png' ? 'slip.png' : 'slip.jpg');
  return send(fetchFn, url, 'POST', form, headers, signal);
}

async function send(
  fetchFn: FetchFn,
  url: string,
  method: string,
  body: string | FormData | undefined,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<HttpOutcome> {
  try {
    const res = await fetchFn(url, { method, headers: { accept: 'application/json', ...headers }, body, signal });
    const text = await readCapped(res);
    let json: unknown = null;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
    }
    return { ok: true, answer: { status: res.status, headers: res.headers, json } };
  } catch (err) {
    const aborted = signal?.aborted === true || (err as Error)?.name === 'AbortError';
    return { ok: false, aborted, reason: aborted ? 'aborted/timeout' : `network: ${(err as Error)?.message ?? String(err)}` };
  }
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

/** Provider dates carry +07:00 (or Z); the port wants ISO 8601 UTC. null when unparseable. */
export function toUtcIso(v: unknown): string | null {
  const s = str(v);
  if (!s) return null;
  const t = Date.parse(s);
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
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
