import { EventEmitter } from 'node:events';
import type { Db } from '../db/db.js';
import { newId } from '../lib/ids.js';

/**
 * Durable jobs. A producer enqueues inside its own database transaction, so a crash between the
 * business write and the job loses nothing and invents nothing. The worker (outbox-worker.ts) claims
 * due rows and runs the handler registered for the kind.
 */
export interface OutboxJob<P = unknown> {
  kind: string;
  shopId?: string | null;
  payload: P;
  runAt?: Date;
}

/** Kinds written by the verify pipeline. */
export const OUTBOX_KINDS = {
  /** A new verification result exists: fan out to webhooks (and anything else that reacts to results). */
  RESULT_CREATED: 'result.created',
  /** Something the shop owner must hear about (stale slip, quota 80/100 %, trial ending). */
  OWNER_ALERT: 'owner.alert',
  /** One attempt round of one webhook delivery (modules/webhooks). */
  WEBHOOK_DELIVER: 'webhook.deliver',
} as const;

export interface ResultCreatedPayload {
  transactionId: string;
  shopId: string;
  source: string;
}

export interface OwnerAlertPayload {
  type: 'STALE_SLIP' | 'QUOTA_80' | 'QUOTA_100' | 'TRIAL_ENDING' | 'LINE_MONTHLY_LIMIT';
  shopId: string;
  transactionId?: string;
  detail?: Record<string, unknown>;
}

export async function enqueueOutbox(trx: Db, job: OutboxJob, now: Date): Promise<string> {
  const id = newId('job', now.getTime());
  await trx
    .insertInto('outbox')
    .values({
      id,
      kind: job.kind,
      shop_id: job.shopId ?? null,
      payload: JSON.stringify(job.payload),
      status: 'pending',
      attempts: 0,
      run_at: (job.runAt ?? now).toISOString(),
      locked_by: null,
      locked_until: null,
      last_error: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    })
    .execute();
  notifyOutbox(job.kind);
  return id;
}

/**
 * In-process wake-up: workers in this process listen and look for due rows at once instead of
 * waiting for their next poll. The notice usually fires before the producer's transaction commits,
 * so the worker re-checks a few times shortly after (outbox-worker.ts); producers may also call
 * `notifyOutbox()` after their commit. Other processes rely on polling.
 */
export const outboxSignal = new EventEmitter();
outboxSignal.setMaxListeners(0);

export function notifyOutbox(kind?: string): void {
  outboxSignal.emit('enqueued', kind);
}
