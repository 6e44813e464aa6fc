import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TransactionSource, TransactionStatus } from './types.js';

/** Name of the HTTP header that carries the signature of every webhook delivery. */
export const SIGNATURE_HEADER = 'X-Service-Signature';

/** Default accepted clock difference between the signer and the receiver, in seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookEventKind = 'slip.verified' | 'slip.duplicate' | 'slip.failed';

export interface WebhookEventData {
  /** Use it with `client.getTransaction(id)` to fetch the full record. */
  transactionId: string;
  transRef: string;
  amount: number;
  status: TransactionStatus;
  sender: string;
  receiver: string;
  /** ISO 8601 UTC. */
  verifiedAt: string;
  latencyMs: number;
  clientRef?: string | null;
  source?: TransactionSource;
  /** Why a slip.failed failed, e.g. `EDITED_SLIP`: the picture prints another amount than the bank's. */
  errorCode?: string | null;
  /** The amount the slip picture prints, as read by the service; null when not read with confidence. */
  printedAmount?: number | null;
  /** The printed amount differs from the bank's: an edited slip. */
  edited?: boolean;
}

export interface WebhookEvent {
  event: WebhookEventKind;
  /** `evt_` followed by hex characters; use it to drop repeated deliveries. */
  id: string;
  /** Unix time in seconds. */
  created: number;
  data: WebhookEventData;
}

export type WebhookSignatureErrorCode =
  | 'RAW_BODY_REQUIRED'
  | 'MISSING_HEADER'
  | 'MALFORMED_HEADER'
  | 'TIMESTAMP_OUTSIDE_TOLERANCE'
  | 'NO_MATCHING_SIGNATURE'
  /** The signature matched but the body is not a JSON event object. */
  | 'INVALID_PAYLOAD';

export class WebhookSignatureError extends Error {
  override readonly name = 'WebhookSignatureError';
  constructor(
    readonly code: WebhookSignatureErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export type RawBody = string | Buffer | Uint8Array;

export interface VerifyWebhookOptions {
  /** Maximum distance between `t=` and now, in seconds (both directions). Default 300. `Infinity` disables the check. */
  toleranceSeconds?: number | undefined;
  /** Clock in milliseconds since the epoch, like `Date.now` (the default). */
  now?: (() => number) | undefined;
}

const HEX_SIGNATURE = /^[0-9a-fA-F]{64}$/;
const UNIX_SECONDS = /^\d{1,12}$/;

/**
 * Checks the `X-Service-Signature` header of a webhook delivery against the raw request body
 * and returns the parsed event. Throws `WebhookSignatureError` (with a `code`) on any failure.
 *
 * Pass several secrets while you rotate the endpoint secret; the header may also carry several
 * `v1=` entries during a rotation, and any match between them is accepted.
 */
export function verifyWebhookSignature(
  rawBody: RawBody,
  header: string | string[] | undefined | null,
  secret: string | readonly string[],
  opts: VerifyWebhookOptions = {},
): WebhookEvent {
  const body = toBytes(rawBody);
  const secrets = normaliseSecrets(secret);
  const { timestamp, signatures } = parseSignatureHeader(header);

  const expected = secrets.map((s) => hmac(s, timestamp, body));
  // Compare every pair without an early exit so the time taken does not depend on which one matched.
  let matched = false;
  for (const candidate of signatures) {
    for (const exp of expected) {
      if (timingSafeEqual(candidate, exp)) matched = true;
    }
  }
  if (!matched) {
    throw new WebhookSignatureError(
      'NO_MATCHING_SIGNATURE',
      'No signature in the header matches the body for the configured secret(s). Check the endpoint secret and that the body was not re-serialised.',
    );
  }

  // Checked after the signature (as stripe-node does) so an unsigned request never learns about the clock window.
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const clock = opts.now ?? Date.now;
  const nowSeconds = Math.floor(clock() / 1000);
  if (Math.abs(nowSeconds - timestamp) > tolerance) {
    throw new WebhookSignatureError(
      'TIMESTAMP_OUTSIDE_TOLERANCE',
      `Signature timestamp ${timestamp} is more than ${tolerance} s away from now (${nowSeconds}); possible replay or clock skew.`,
    );
  }

  return parseEvent(body);
}

/**
 * Builds a valid `X-Service-Signature` value: `t=<unix>,v1=<hex>` with one `v1` per secret
 * (old and new secret during a rotation). Pure apart from reading the clock when no timestamp is given.
 */
export function signWebhookPayload(
  rawBody: RawBody,
  secret: string | readonly string[],
  timestamp: number = Math.floor(Date.now() / 1000),
): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new TypeError('timestamp must be a non-negative integer number of seconds');
  }
  const body = toBytes(rawBody);
  const parts = normaliseSecrets(secret).map((s) => `v1=${hmac(s, timestamp, body).toString('hex')}`);
  return [`t=${timestamp}`, ...parts].join(',');
}

/** Hex HMAC-SHA256 of `${timestamp}.` + body: the `v1` value, exposed for independent checks. */
export function computeWebhookSignature(rawBody: RawBody, secret: string, timestamp: number): string {
  return hmac(secret, timestamp, toBytes(rawBody)).toString('hex');
}

/**
 * For integrators' own tests: serialises an event (or takes a string as is) and signs it, giving
 * the exact `body` to POST and the `header` to send with it.
 */
export function buildTestSignatureHeader(
  payload: WebhookEvent | Record<string, unknown> | string,
  secret: string | readonly string[],
  opts: { timestamp?: number } = {},
): { body: string; header: string; headers: Record<string, string> } {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const header = signWebhookPayload(body, secret, opts.timestamp);
  return { body, header, headers: { 'content-type': 'application/json', [SIGNATURE_HEADER.toLowerCase()]: header } };
}

function hmac(secret: string, timestamp: number, body: Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(body).digest();
}

function toBytes(rawBody: unknown): Uint8Array {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array) return rawBody; // Buffer is a Uint8Array
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  throw new WebhookSignatureError(
    'RAW_BODY_REQUIRED',
    rawBody === undefined || rawBody === null
      ? 'No request body was given. Pass the raw body (string or Buffer) exactly as received.'
      : `The body is an already-parsed ${typeof rawBody}; the signature covers the exact bytes received. ` +
          "Pass the raw body: express.raw({ type: 'application/json' }) in Express, a Buffer content-type parser in Fastify.",
  );
}

function normaliseSecrets(secret: string | readonly string[]): string[] {
  const list = typeof secret === 'string' ? [secret] : [...secret];
  if (list.length === 0 || list.some((s) => typeof s !== 'string' || s.length === 0)) {
    // A programming error, not a bad delivery: an empty secret would make every header forgeable.
    throw new TypeError('webhook secret must be a non-empty string or a non-empty array of non-empty strings');
  }
  return list;
}

function parseSignatureHeader(header: string | string[] | undefined | null): {
  timestamp: number;
  signatures: Buffer[];
} {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new WebhookSignatureError('MISSING_HEADER', `The ${SIGNATURE_HEADER} header is missing or empty.`);
  }
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const rawPart of value.split(',')) {
    const part = rawPart.trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw malformed(`element "${part.slice(0, 20)}" is not key=value`);
    const key = part.slice(0, eq).trim();
    const val = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined) throw malformed('more than one t= element');
      if (!UNIX_SECONDS.test(val)) throw malformed('t= is not a Unix timestamp in seconds');
      timestamp = Number(val);
    } else if (key === 'v1') {
      if (!HEX_SIGNATURE.test(val)) throw malformed('v1= is not 64 hexadecimal characters');
      signatures.push(Buffer.from(val, 'hex'));
    }
    // Other keys (future schemes such as v2=) are ignored so the header can evolve.
  }
  if (timestamp === undefined) throw malformed('no t= element');
  if (signatures.length === 0) throw malformed('no v1= element');
  return { timestamp, signatures };
}

function malformed(detail: string): WebhookSignatureError {
  return new WebhookSignatureError('MALFORMED_HEADER', `${SIGNATURE_HEADER} must look like "t=<unix>,v1=<hex>": ${detail}.`);
}

function parseEvent(body: Uint8Array): WebhookEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    throw new WebhookSignatureError('INVALID_PAYLOAD', 'The signed body is not valid JSON.');
  }
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    typeof (parsed as { event?: unknown }).event !== 'string' ||
    typeof (parsed as { data?: unknown }).data !== 'object'
  ) {
    throw new WebhookSignatureError('INVALID_PAYLOAD', 'The signed body is not a webhook event object.');
  }
  return parsed as WebhookEvent;
}
