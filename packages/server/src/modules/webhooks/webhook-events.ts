import { randomBytes } from 'node:crypto';
import type { TransactionRecord } from '../transactions/transaction-record.js';

/** Event kinds of the spec; the mapping from status is ours (documented in README.md). */
export const WEBHOOK_EVENT_KINDS = ['slip.verified', 'slip.duplicate', 'slip.failed'] as const;
export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

export function eventKindForStatus(status: string): WebhookEventKind {
  if (status === 'SUCCESS') return 'slip.verified';
  if (status === 'DUPLICATE') return 'slip.duplicate';
  return 'slip.failed';
}

export const newEventId = () => `evt_${randomBytes(12).toString('hex')}`;

export interface BuiltEvent {
  id: string;
  kind: WebhookEventKind;
  /** The exact bytes sent (and signed) on every attempt of every delivery of this event. */
  body: string;
}

/**
 * Body exactly as the spec (event, id, created, data.*) plus data.clientRef, data.source and
 * data.environment (a receiver that credits orders must tell a sk_test_ check from a live one).
 * Values the slip did not give (an unreadable slip has no transRef) are null rather than invented.
 */
export function buildEvent(rec: TransactionRecord, now: Date, id = newEventId()): BuiltEvent {
  const kind = eventKindForStatus(rec.status);
  const body = {
    event: kind,
    id,
    created: Math.floor(now.getTime() / 1000),
    data: {
      transactionId: rec.id,
      transRef: rec.transRef,
      amount: rec.amount,
      status: rec.status,
      sender: rec.senderName,
      receiver: rec.receiverName,
      verifiedAt: rec.createdAt,
      latencyMs: rec.latencyMs,
      clientRef: rec.clientRef,
      source: rec.source,
      environment: rec.environment,
      // Edited slips (issue 20): slip.failed says why (EDITED_SLIP) and what the picture claimed.
      errorCode: rec.errorCode,
      printedAmount: rec.printedAmount,
      edited: rec.edited,
    },
  };
  return { id, kind, body: JSON.stringify(body) };
}

/** The sample of "send test event": a plausible slip.verified with obviously fake values, marked as a test. */
export function buildTestEvent(now: Date): BuiltEvent {
  const id = newEventId();
  const body = {
    event: 'slip.verified' as const,
    id,
    created: Math.floor(now.getTime() / 1000),
    data: {
      transactionId: 'txn_test_000000000000000000',
      transRef: 'TEST0000000000000000',
      amount: 1,
      status: 'SUCCESS',
      sender: 'TEST SENDER',
      receiver: 'TEST RECEIVER',
      verifiedAt: now.toISOString(),
      latencyMs: 0,
      clientRef: null,
      source: 'DASHBOARD',
      environment: 'test',
      errorCode: null,
      printedAmount: 1,
      edited: false,
    },
  };
  return { id, kind: 'slip.verified', body: JSON.stringify(body) };
}
