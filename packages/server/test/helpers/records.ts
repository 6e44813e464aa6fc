import { newId } from '../../src/lib/ids.js';
import type { ServiceHarness } from './harness.js';

import type { OutboxTable, TransactionsTable } from '../../src/db/db-schema.js';

/** An outbox row as `enqueueOutbox` writes it (pending, due at `at`), with the stored payload text as given: bulk or hand-made rows. */
export function outboxRow(kind: string, payload: string, at: Date, shopId: string | null = null): OutboxTable {
  return {
    id: newId('job', at.getTime()),
    kind,
    shop_id: shopId,
    payload,
    status: 'pending',
    attempts: 0,
    run_at: at.toISOString(),
    locked_by: null,
    locked_until: null,
    last_error: null,
    created_at: at.toISOString(),
    updated_at: at.toISOString(),
    dedupe_key: null,
  };
}

/** A result row as the pipeline would write it: a live, charged SUCCESS-shaped record checked at `at` (fields overridable). */
export function transactionRow(shopId: string, at: Date, status = 'SUCCESS', extra: Partial<TransactionsTable> = {}): TransactionsTable {
  const id = extra.id ?? newId('txn', at.getTime());
  return {
    id,
    shop_id: shopId,
    source: 'API',
    environment: 'live',
    status,
    trans_ref: `R${id.slice(-10)}`,
    amount_satang: 10050,
    expected_amount_satang: null,
    bank_code: '004',
    bank_name: 'KBANK',
    sender_name: 'นาย ก',
    sender_account: 'xxx-x-x1234-x',
    receiver_name: 'ร้าน',
    receiver_account: 'xxx-x-x6660-x',
    trans_date: at.toISOString(),
    error_code: null,
    error_message: null,
    duplicate: 0,
    stale: 0,
    charged: 1,
    latency_ms: 10,
    client_ref: null,
    image_hash: null,
    api_key_id: null,
    success_ref: null,
    payee_id: null,
    anonymized_at: null,
    created_at: at.toISOString(),
    ...extra,
  };
}

/** How many records the shop has (any status, both environments). */
export async function countRecords(h: ServiceHarness, shopId: string): Promise<number> {
  const r = await h.c.db
    .selectFrom('transactions')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('shop_id', '=', shopId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Stores a result of the shop (see transactionRow); returns its id. */
export async function seedTx(h: ServiceHarness, shopId: string, at: Date, status: string, extra: Record<string, unknown> = {}) {
  const row = transactionRow(shopId, at, status, extra as Partial<TransactionsTable>);
  await h.c.db.insertInto('transactions').values(row).execute();
  return row.id;
}

/** The owner alerts queued for a shop (the payloads of its outbox `owner.alert` jobs). */
export const outboxAlerts = async (h: ServiceHarness, shopId: string) =>
  (await h.c.db.selectFrom('outbox').select('payload').where('kind', '=', 'owner.alert').where('shop_id', '=', shopId).execute()).map((r) =>
    JSON.parse(r.payload),
  );
