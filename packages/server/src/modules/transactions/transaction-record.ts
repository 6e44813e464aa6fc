import type { Static } from 'typebox';
import type { TransactionsTable } from '../../db/db-schema.js';
import type { TransactionRecordSchema } from './transaction-schemas.js';
import { satangToAmount } from '../../lib/money.js';

import { TRANSACTION_SOURCES, TRANSACTION_STATUSES } from '@slipcheck/sdk';

// One table of statuses and sources, in the SDK (the dashboard and integrators use it too).
export const STATUSES = TRANSACTION_STATUSES;
export type TxStatus = (typeof STATUSES)[number];
export const SOURCES = TRANSACTION_SOURCES;
export type TxSource = (typeof SOURCES)[number];

/**
 * The transaction record as the spec shows it (plus clientRef, source and stale), typed from its one
 * schema: the TypeBox schema is what the routes validate and what the OpenAPI document (and from it the
 * SDK's generated types) says, so the three cannot drift.
 */
export type TransactionRecord = Static<typeof TransactionRecordSchema>;

/** Stored satang to the record's `amount` (a JSON number in the contract), built from its decimal text. */
const amountOf = (s: number | null) => (s === null || s === undefined ? null : satangToAmount(Number(s)));

export function recordFromRow(r: TransactionsTable, cached = false): TransactionRecord {
  return {
    id: r.id,
    status: r.status as TxStatus,
    verified: r.status === 'SUCCESS',
    transRef: r.trans_ref,
    amount: amountOf(r.amount_satang),
    bankCode: r.bank_code,
    bankName: r.bank_name,
    senderName: r.sender_name,
    senderAccount: r.sender_account,
    receiverName: r.receiver_name,
    receiverAccount: r.receiver_account,
    transDate: r.trans_date,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    createdAt: r.created_at,
    duplicate: !!r.duplicate,
    cached,
    latencyMs: r.latency_ms,
    environment: r.environment === 'test' ? 'test' : 'live',
    source: r.source as TxSource,
    clientRef: r.client_ref,
    stale: !!r.stale,
    printedAmount: amountOf(r.printed_amount_satang ?? null),
    edited: !!r.edited,
  };
}
