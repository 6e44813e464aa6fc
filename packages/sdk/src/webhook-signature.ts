import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { webhooks } from './api-types.gen.js';

/** Name of the HTTP header that carries the signature of every webhook delivery. */
export const SIGNATURE_HEADER = 'X-Service-Signature';
/** The other headers of every delivery (see `readWebhookDelivery`). */
export const DELIVERY_ID_HEADER = 'X-Service-Delivery-Id';
export const EVENT_HEADER = 'X-Service-Event';
/** 1 on the first delivery, 2 on the first retry, and so on. */
export const ATTEMPT_HEADER = 'X-Service-Attempt';

/** Default accepted clock difference between the signer and the receiver, in seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

// The event types are generated from the `webhooks` of the service's OpenAPI document
// (api-types.gen.ts), like the API's response types: the body a delivery really carries is checked
// against that document by the service's contract tests, so these types cannot drift from it.

/** The kinds of event, one per `webhooks` entry of the OpenAPI document. */
export type WebhookEventKind = keyof webhooks;

/** The body of one kind of event, exactly as the OpenAPI document declares it. */
export type WebhookEventOf<K extends WebhookEventKind> = NonNullable<webhooks[K]['post']>['requestBody']['content']['application/json'];

/**
 * A delivered event, discriminated on `event`. Fields a slip did not give are `null`: an unreadable
 * slip (`slip.failed` with status `INVALID`) has no `transRef`, `amount`, `sender` or `receiver`,
 * so strict TypeScript makes you handle that before using them.
 */
export type WebhookEvent = { [K in WebhookEventKind]: WebhookEventOf<K> }[WebhookEventKind];

/** `data` of an event; `transactionId` fetches the full record with `client.getTransaction(id)`. */
export type WebhookEventData = WebhookEvent['data'];

/** The headers of a delivery besides the signature, as the OpenAPI document declares them. */
export type WebhookDeliveryHeaders = NonNullable<webhooks[WebhookEventKind]['post']>['parameters']['header'];

export interface WebhookDelivery {
  /** Stable across the retries of one delivery: dedupe on it (or on the event id). */
  deliveryId: string | null;
  event: WebhookEventKind | null;
  /** 1 for the first delivery, 2 for the first retry, ... (null when the header is missing or not a positive integer). */
  attempt: number | null;
}

/**
 * Reads `X-Service-Delivery-Id`, `X-Service-Event` and `X-Service-Attempt` from a request's headers
 * (Node's `req.headers`, a fetch `Headers`, or a plain object in any letter case). Not signed: use
 * them for logs and dedupe, and trust only the body that `verifyWebhookSignature` returns.
 */
export function readWebhookDelivery(headers: Headers | Record<string, string | string[] | undefined>): WebhookDelivery {
  const get = (name: string): string | null => {
    if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
    const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
    const value = key === undefined ? undefined : (headers as Record<string, string | string[] | undefined>)[key];
    return (Array.isArray(value) ? value[0] : value) ?? null;
  };
  const attempt = get(ATTEMPT_HEADER);
  const event = get(EVENT_HEADER);
  const kinds: readonly string[] = ['slip.verified', 'slip.duplicate', 'slip.failed'] satisfies WebhookEventKind[];
  return {
    deliveryId: get(DELIVERY_ID_HEADER),
    event: event !== null && kinds.includes(event) ? (event as WebhookEventKind) : null,
    attempt: attempt !== null && /^[1-9]\d{0,5}$/.test(attempt) ? Number(attempt) : null,
  };
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
 * the exact `body` to POST, the `header` to send with it, and `headers`: every header of a real
 * delivery (signature, content type, `X-Service-Event`, `X-Service-Delivery-Id`, `X-Service-Attempt`),
 * so a handler that reads them with `readWebhookDelivery` sees what the service sends. Each call is
 * a new delivery (`whd_test_` + 20 hex) on its first attempt unless `deliveryId` / `attempt` say otherwise.
 */
export function buildTestSignatureHeader(
  payload: WebhookEvent | Record<string, unknown> | string,
  secret: string | readonly string[],
  opts: { timestamp?: number | undefined; deliveryId?: string | undefined; attempt?: number | undefined } = {},
): { body: string; header: string; headers: Record<string, string> } {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const header = signWebhookPayload(body, secret, opts.timestamp);
  const headers: Record<string, string> = { 'content-type': 'application/json', [SIGNATURE_HEADER.toLowerCase()]: header };
  const kind = eventKindOf(payload);
  if (kind !== null) headers[EVENT_HEADER.toLowerCase()] = kind;
  headers[DELIVERY_ID_HEADER.toLowerCase()] = opts.deliveryId ?? `whd_test_${randomBytes(10).toString('hex')}`;
  headers[ATTEMPT_HEADER.toLowerCase()] = String(opts.attempt ?? 1);
  return { body, header, headers };
}

/** The `event` of a payload given as an object or a JSON string; null when it has none. */
function eventKindOf(payload: unknown): string | null {
  let value: unknown = payload;
  if (typeof payload === 'string') {
    try {
      value = JSON.parse(payload);
    } catch {
      return null;
    }
  }
  const kind = (value as { event?: unknown } | null)?.event;
  return typeof kind === 'string' && kind !== '' ? kind : null;
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
