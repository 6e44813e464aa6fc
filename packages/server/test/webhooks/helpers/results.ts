import type { ServiceHarness } from '../../helpers/harness.js';
import { newId } from '../../../src/lib/ids.js';
import { RESULT_CREATED_JOB } from '../../../src/modules/verification/verification-jobs.js';
import { enqueueOutbox } from '../../../src/outbox/outbox-repo.js';

/** A new verification result without the verify pipeline: the transaction row and its outbox job in one transaction. */
export async function insertResult(
  h: ServiceHarness,
  shopId: string,
  o: { status?: string; amount?: number; clientRef?: string | null; source?: string } = {},
) {
  const now = h.c.clock.now();
  const id = newId('txn', now.getTime());
  const status = o.status ?? 'SUCCESS';
  const transRef = `REF${id.slice(-12).toUpperCase()}`;
  await h.c.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('transactions')
      .values({
        id,
        shop_id: shopId,
        source: o.source ?? 'API',
        environment: 'live',
        status,
        trans_ref: transRef,
        amount_satang: Math.round((o.amount ?? 150.5) * 100),
        expected_amount_satang: null,
        bank_code: '004',
        bank_name: 'KBANK',
        sender_name: 'นาย ทดสอบ ส่ง',
        sender_account: 'xxx-x-x1234-x',
        receiver_name: 'บจก. ร้านกาแฟ',
        receiver_account: 'xxx-x-x6609-x',
        trans_date: now.toISOString(),
        error_code: null,
        error_message: null,
        duplicate: status === 'DUPLICATE' ? 1 : 0,
        stale: 0,
        charged: 1,
        latency_ms: 321,
        client_ref: o.clientRef ?? 'order-1',
        image_hash: null,
        api_key_id: null,
        success_ref: status === 'SUCCESS' ? transRef : null,
        anonymized_at: null,
        created_at: now.toISOString(),
      })
      .execute();
    await enqueueOutbox(trx, { kind: RESULT_CREATED_JOB, shopId, payload: { transactionId: id, shopId, source: o.source ?? 'API' } }, now);
  });
  return { id, transRef, status };
}
