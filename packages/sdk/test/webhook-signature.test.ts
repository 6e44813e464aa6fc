import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  WebhookSignatureError,
  buildTestSignatureHeader,
  readWebhookDelivery,
  signWebhookPayload,
  verifyWebhookSignature,
  type WebhookEvent,
} from '../src/index.js';

const SECRET = 'whsec_current_0123456789';
const OLD_SECRET = 'whsec_previous_abcdef';
const T = 1_760_000_000;
const nowAt = (seconds: number) => () => seconds * 1000;

const event: WebhookEvent = {
  event: 'slip.verified',
  id: 'evt_0a1b2c3d4e5f',
  created: T,
  data: {
    transactionId: 'txn_123',
    transRef: '016123AbCdEf4567',
    amount: 1250.5,
    status: 'SUCCESS',
    sender: 'นาย สมชาย ใจดี',
    receiver: 'ร้าน ตัวอย่าง',
    verifiedAt: '2025-10-09T08:00:00.000Z',
    latencyMs: 812,
    clientRef: 'order-42',
    source: 'API',
    environment: 'live',
  },
};
const body = JSON.stringify(event);

// Independent of the SDK: straight from the spec's definition of v1.
function referenceV1(secret: string, t: number, raw: string | Buffer): string {
  return createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${t}.`), Buffer.from(raw)]))
    .digest('hex');
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookSignatureError);
    return (err as WebhookSignatureError).code;
  }
  throw new Error('expected a WebhookSignatureError');
}

describe('verifyWebhookSignature', () => {
  it('accepts a header built by an independent HMAC and returns the parsed event', () => {
    const header = `t=${T},v1=${referenceV1(SECRET, T, body)}`;
    expect(verifyWebhookSignature(body, header, SECRET, { now: nowAt(T + 10) })).toEqual(event);
    expect(verifyWebhookSignature(Buffer.from(body), header, SECRET, { now: nowAt(T) })).toEqual(event);
    expect(verifyWebhookSignature(new Uint8Array(Buffer.from(body)), header, SECRET, { now: nowAt(T) }).id).toBe(event.id);
  });

  it('signWebhookPayload produces exactly the reference signature', () => {
    expect(signWebhookPayload(body, SECRET, T)).toBe(`t=${T},v1=${referenceV1(SECRET, T, body)}`);
    expect(signWebhookPayload(body, [OLD_SECRET, SECRET], T)).toBe(
      `t=${T},v1=${referenceV1(OLD_SECRET, T, body)},v1=${referenceV1(SECRET, T, body)}`,
    );
  });

  it('signs the raw bytes, not a re-decoded string', () => {
    const raw = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0xff, 0x7d]); // not valid UTF-8
    expect(signWebhookPayload(raw, SECRET, T)).toBe(`t=${T},v1=${referenceV1(SECRET, T, raw)}`);
  });

  it('rejects a tampered body', () => {
    const header = `t=${T},v1=${referenceV1(SECRET, T, body)}`;
    const tampered = body.replace('1250.5', '9250.5');
    expect(codeOf(() => verifyWebhookSignature(tampered, header, SECRET, { now: nowAt(T) }))).toBe('NO_MATCHING_SIGNATURE');
    // Re-serialising changes bytes too (whitespace), which is why the raw body is required.
    const reserialised = JSON.stringify(JSON.parse(body), null, 2);
    expect(codeOf(() => verifyWebhookSignature(reserialised, header, SECRET, { now: nowAt(T) }))).toBe('NO_MATCHING_SIGNATURE');
  });

  it('rejects the wrong secret and a shifted timestamp', () => {
    const header = `t=${T},v1=${referenceV1('whsec_other', T, body)}`;
    expect(codeOf(() => verifyWebhookSignature(body, header, SECRET, { now: nowAt(T) }))).toBe('NO_MATCHING_SIGNATURE');
    const shifted = `t=${T + 1},v1=${referenceV1(SECRET, T, body)}`;
    expect(codeOf(() => verifyWebhookSignature(body, shifted, SECRET, { now: nowAt(T) }))).toBe('NO_MATCHING_SIGNATURE');
  });

  it('accepts either v1 during a rotation, with old or new secret configured', () => {
    const header = `t=${T},v1=${referenceV1(OLD_SECRET, T, body)},v1=${referenceV1(SECRET, T, body)}`;
    expect(verifyWebhookSignature(body, header, SECRET, { now: nowAt(T) }).id).toBe(event.id);
    expect(verifyWebhookSignature(body, header, OLD_SECRET, { now: nowAt(T) }).id).toBe(event.id);
    // Receiver holding both secrets while the sender still signs only with the old one.
    const oldOnly = `t=${T},v1=${referenceV1(OLD_SECRET, T, body)}`;
    expect(verifyWebhookSignature(body, oldOnly, [SECRET, OLD_SECRET], { now: nowAt(T) }).id).toBe(event.id);
    expect(codeOf(() => verifyWebhookSignature(body, header, 'whsec_unrelated', { now: nowAt(T) }))).toBe('NO_MATCHING_SIGNATURE');
  });

  it('enforces the tolerance window in both directions', () => {
    const header = `t=${T},v1=${referenceV1(SECRET, T, body)}`;
    expect(verifyWebhookSignature(body, header, SECRET, { now: nowAt(T + 300) }).id).toBe(event.id);
    expect(codeOf(() => verifyWebhookSignature(body, header, SECRET, { now: nowAt(T + 301) }))).toBe('TIMESTAMP_OUTSIDE_TOLERANCE');
    expect(codeOf(() => verifyWebhookSignature(body, header, SECRET, { now: nowAt(T - 301) }))).toBe('TIMESTAMP_OUTSIDE_TOLERANCE');
    expect(codeOf(() => verifyWebhookSignature(body, header, SECRET, { now: nowAt(T + 61), toleranceSeconds: 60 }))).toBe(
      'TIMESTAMP_OUTSIDE_TOLERANCE',
    );
    expect(verifyWebhookSignature(body, header, SECRET, { now: nowAt(T + 10 ** 6), toleranceSeconds: Infinity }).id).toBe(event.id);
  });

  it('does not reveal the clock window to an unsigned request', () => {
    const header = `t=${T - 10_000},v1=${'0'.repeat(64)}`;
    expect(codeOf(() => verifyWebhookSignature(body, header, SECRET, { now: nowAt(T) }))).toBe('NO_MATCHING_SIGNATURE');
  });

  it('reports a missing header', () => {
    expect(codeOf(() => verifyWebhookSignature(body, undefined, SECRET))).toBe('MISSING_HEADER');
    expect(codeOf(() => verifyWebhookSignature(body, '  ', SECRET))).toBe('MISSING_HEADER');
  });

  it.each([
    ['garbage', 'garbage'],
    ['no v1', `t=${T}`],
    ['no t', `v1=${'a'.repeat(64)}`],
    ['t not numeric', `t=abc,v1=${'a'.repeat(64)}`],
    ['v1 not hex', `t=${T},v1=${'z'.repeat(64)}`],
    ['v1 too short', `t=${T},v1=abcd`],
    ['two t', `t=${T},t=${T},v1=${'a'.repeat(64)}`],
    ['t= prefix inside v1 scheme', `t=${T}v1=${'a'.repeat(64)}`],
  ])('reports a malformed header: %s', (_name, header) => {
    expect(codeOf(() => verifyWebhookSignature(body, header, SECRET, { now: nowAt(T) }))).toBe('MALFORMED_HEADER');
  });

  it('ignores unknown schemes and spaces in the header', () => {
    const header = ` t=${T} , v0=deadbeef , v1=${referenceV1(SECRET, T, body)} `;
    expect(verifyWebhookSignature(body, header, SECRET, { now: nowAt(T) }).id).toBe(event.id);
  });

  it('asks for the raw body when given an already-parsed object', () => {
    const header = `t=${T},v1=${referenceV1(SECRET, T, body)}`;
    const parsed = JSON.parse(body) as unknown as string;
    const err = (() => {
      try {
        verifyWebhookSignature(parsed, header, SECRET, { now: nowAt(T) });
      } catch (e) {
        return e as WebhookSignatureError;
      }
      throw new Error('no error');
    })();
    expect(err.code).toBe('RAW_BODY_REQUIRED');
    expect(err.message).toMatch(/express\.raw/);
    expect(codeOf(() => verifyWebhookSignature(undefined as unknown as string, header, SECRET))).toBe('RAW_BODY_REQUIRED');
  });

  it('reports a signed body that is not an event', () => {
    const header = signWebhookPayload('not json', SECRET, T);
    expect(codeOf(() => verifyWebhookSignature('not json', header, SECRET, { now: nowAt(T) }))).toBe('INVALID_PAYLOAD');
  });

  it('refuses an empty secret as a programming error', () => {
    expect(() => verifyWebhookSignature(body, `t=${T},v1=${'a'.repeat(64)}`, '')).toThrow(TypeError);
    expect(() => signWebhookPayload(body, [])).toThrow(TypeError);
  });

  it('buildTestSignatureHeader gives a body and header that verify', () => {
    const { body: sent, header, headers } = buildTestSignatureHeader(event, SECRET, { timestamp: T });
    expect(headers['x-service-signature']).toBe(header);
    expect(header).toBe(`t=${T},v1=${referenceV1(SECRET, T, sent)}`);
    expect(verifyWebhookSignature(sent, header, SECRET, { now: nowAt(T) })).toEqual(event);
  });

  // Every real delivery carries X-Service-Event, X-Service-Delivery-Id and X-Service-Attempt (the
  // OpenAPI document marks them required); a handler that dedupes on readWebhookDelivery() got
  // { deliveryId: null, event: null, attempt: null } from the SDK's own test request.
  it('buildTestSignatureHeader headers are those of a real first delivery, so readWebhookDelivery reads them', () => {
    const { headers } = buildTestSignatureHeader(event, SECRET, { timestamp: T });
    const delivery = readWebhookDelivery(headers);
    expect(delivery.event).toBe(event.event);
    expect(delivery.attempt).toBe(1);
    expect(delivery.deliveryId).toMatch(/^whd_test_[0-9a-f]{20}$/);
    // Two test requests are two deliveries (a dedupe store must not drop the second).
    expect(readWebhookDelivery(buildTestSignatureHeader(event, SECRET).headers).deliveryId).not.toBe(delivery.deliveryId);
    // A retry of one delivery, as the service sends it: the same id, the next attempt.
    const retry = buildTestSignatureHeader(event, SECRET, { deliveryId: 'whd_mine', attempt: 2 }).headers;
    expect(readWebhookDelivery(retry)).toEqual({ deliveryId: 'whd_mine', event: event.event, attempt: 2 });
    // A string body is sent as given; its event header comes from the body when it is an event.
    expect(readWebhookDelivery(buildTestSignatureHeader(JSON.stringify(event), SECRET).headers).event).toBe(event.event);
  });
});

describe('readWebhookDelivery', () => {
  it('reads delivery id, event and attempt (1 = first delivery) from Node headers, fetch Headers or any letter case', () => {
    const node = { 'x-service-delivery-id': 'whd_1', 'x-service-event': 'slip.failed', 'x-service-attempt': '1' };
    expect(readWebhookDelivery(node)).toEqual({ deliveryId: 'whd_1', event: 'slip.failed', attempt: 1 });
    const fetched = new Headers({ 'X-Service-Delivery-Id': 'whd_2', 'X-Service-Event': 'slip.verified', 'X-Service-Attempt': '6' });
    expect(readWebhookDelivery(fetched)).toEqual({ deliveryId: 'whd_2', event: 'slip.verified', attempt: 6 });
    expect(readWebhookDelivery({ 'X-Service-Attempt': ['2'] }).attempt).toBe(2);
  });

  it('answers null for a missing or malformed value (0 is not an attempt number)', () => {
    expect(readWebhookDelivery({})).toEqual({ deliveryId: null, event: null, attempt: null });
    for (const bad of ['0', '-1', '1.5', 'x', '']) expect(readWebhookDelivery({ 'x-service-attempt': bad }).attempt, bad).toBeNull();
    expect(readWebhookDelivery({ 'x-service-event': 'slip.paid' }).event).toBeNull();
  });
});
