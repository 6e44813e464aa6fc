import { EventEmitter } from 'node:events';
import type { Db } from '../db/db.js';
import { newId } from '../lib/ids.js';
import type { OutboxJob, OutboxKind } from './outbox-types.js';

/**
 * Durable jobs. A producer enqueues inside its own database transaction, so a crash between the
 * business write and the job loses nothing and invents nothing. The worker (outbox-worker.ts) claims
 * due rows and runs the handler registered for the kind. Kinds and their payload types belong to the
 * modules that own them (outbox-types.ts); this file knows none of them.
 */
export async function enqueueOutbox<K extends OutboxKind>(trx: Db, job: OutboxJob<K>, now: Date): Promise<string> {
  const { id } = await insertOutboxJob(trx, job, now);
  notifyOutbox(job.kind);
  return id;
}

/**
 * Writes one job row. `claim` writes it already claimed (the worker's follow-ups: attempts 1, the
 * claimer's token and lease); without it the row is free for any worker.
 */
export async function insertOutboxJob<K extends OutboxKind>(
  trx: Db,
  job: OutboxJob<K>,
  now: Date,
  claim?: { token: string; until: Date },
): Promise<{ id: string; runAt: string }> {
  const id = newId('job', now.getTime());
  const runAt = (job.runAt ?? now).toISOString();
  await trx
    .insertInto('outbox')
    .values({
      id,
      kind: job.kind,
      shop_id: job.shopId ?? null,
      payload: JSON.stringify(job.payload),
      status: 'pending',
      attempts: claim ? 1 : 0,
      run_at: runAt,
      locked_by: claim?.token ?? null,
      locked_until: claim?.until.toISOString() ?? null,
      last_error: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    })
    .execute();
  return { id, runAt };
}

/** The backlog for the metrics gauges: pending jobs, and how long the oldest due one has waited. */
export async function outboxBacklog(db: Db, now: Date): Promise<{ depth: number; oldestAgeSeconds: number }> {
  const nowIso = now.toISOString();
  const r = await db
    .selectFrom('outbox')
    .where('status', '=', 'pending')
    .select((eb) => [
      eb.fn.countAll<number>().as('depth'),
      eb.fn.min(eb.case().when('run_at', '<=', nowIso).then(eb.ref('run_at')).end()).as('oldest'),
    ])
    .executeTakeFirst();
  const oldest = r?.oldest ? Date.parse(String(r.oldest)) : NaN;
  return {
    depth: Number(r?.depth ?? 0),
    oldestAgeSeconds: Number.isFinite(oldest) ? Math.max(0, (now.getTime() - oldest) / 1000) : 0,
  };
}

/**
 * In-process wake-up: workers in this process listen and look for due rows at once instead of
 * waiting for their next poll. The notice usually fires before the producer's transaction commits,
 * so the worker re-checks a few times shortly after (outbox-worker.ts); producers may also call
 * `notifyOutbox()` after their commit. Other processes rely on polling.
 */
export const outboxSignal = new EventEmitter();
outboxSignal.setMaxListeners(0);

export function notifyOutbox(kind?: OutboxKind): void {
  outboxSignal.emit('enqueued', kind);
}
