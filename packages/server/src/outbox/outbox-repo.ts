import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import { preparedQuery, preparedRowQuery, type Db } from '../db/db.js';
import type { OutboxTable } from '../db/db-schema.js';
import { newId } from '../lib/ids.js';
import type { OutboxJob, OutboxKind } from './outbox-types.js';
import { deleteShopRows, type ShopPurge } from '../db/shop-rows.js';
import { assertOutboxPayload, INVALID_PAYLOAD } from './outbox-registry.js';

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

/** Every verify and every webhook round writes jobs (SQL built once, see preparedRowQuery). */
const insertJobQuery = preparedRowQuery((db: Db, row: OutboxTable) => db.insertInto('outbox').values(row));

/** Marks a job done, fenced on its claim (every job's last statement). */
const completeJobQuery = preparedQuery((db: Db, id: string, token: string, nowIso: string) =>
  db
    .updateTable('outbox')
    .set({ status: 'done', locked_by: null, locked_until: null, updated_at: nowIso })
    .where('id', '=', id)
    .where('locked_by', '=', token)
    .where('status', '=', 'pending')
    .returning('id'),
);

/**
 * Enqueues a job that must exist at most once: `dedupeKey` is unique in the table, so of any number of
 * callers (on any number of nodes) the first inserts and the others do nothing. Returns the new job's
 * id, or null when a job with this key already exists (done jobs keep their key until pruned).
 */
export async function enqueueOutboxOnce<K extends OutboxKind>(
  trx: Db,
  job: OutboxJob<K> & { dedupeKey: string },
  now: Date,
): Promise<string | null> {
  const inserted = await insertOutboxJob(trx, job, now);
  if (inserted) notifyOutbox(job.kind);
  return inserted?.id ?? null;
}

/**
 * Writes one job row, after checking its payload against the kind's schema (a mismatch throws: the
 * caller has a bug). `claim` writes it already claimed (the worker's follow-ups: attempts 1, the
 * claimer's token and lease); without it the row is free for any worker. With `dedupeKey`, null when
 * a job with that key exists already.
 */
export async function insertOutboxJob<K extends OutboxKind>(
  trx: Db,
  job: OutboxJob<K> & { dedupeKey: string },
  now: Date,
  claim?: { token: string; until: Date },
): Promise<{ id: string; runAt: string } | null>;
export async function insertOutboxJob<K extends OutboxKind>(
  trx: Db,
  job: OutboxJob<K>,
  now: Date,
  claim?: { token: string; until: Date },
): Promise<{ id: string; runAt: string }>;
export async function insertOutboxJob<K extends OutboxKind>(
  trx: Db,
  job: OutboxJob<K> & { dedupeKey?: string },
  now: Date,
  claim?: { token: string; until: Date },
): Promise<{ id: string; runAt: string } | null> {
  assertOutboxPayload(job.kind, job.payload);
  const id = newId('job', now.getTime());
  const runAt = (job.runAt ?? now).toISOString();
  const row: OutboxTable = {
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
    dedupe_key: job.dedupeKey ?? null,
  };
  if (job.dedupeKey === undefined) {
    await insertJobQuery(trx, row); // the common case, SQL built once
    return { id, runAt };
  }
  const r = await trx
    .insertInto('outbox')
    .values(row)
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) === 1 ? { id, runAt } : null;
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
 * The worker's statements (outbox-worker.ts). Every write after a claim is fenced on the claim token
 * (`locked_by`) and on `status = 'pending'`: a worker that lost its lease cannot touch a job another
 * worker now owns.
 */
export const outboxClaims = {
  /**
   * One UPDATE ... WHERE id IN (due rows LIMIT n) RETURNING that leases up to `limit` due jobs of
   * `kinds` to `token`. `skipLocked` (PostgreSQL) makes concurrent workers skip each other's rows.
   * A row that still held a lease was abandoned by a dead worker: its `last_error` becomes `takenBackMark`.
   */
  claimDue(
    db: Db,
    o: { kinds: string[]; limit: number; token: string; now: Date; leaseMs: number; skipLocked: boolean; takenBackMark: string },
  ): Promise<OutboxTable[]> {
    const nowIso = o.now.toISOString();
    return db
      .updateTable('outbox')
      .set((eb) => ({
        locked_by: o.token,
        locked_until: new Date(o.now.getTime() + o.leaseMs).toISOString(),
        attempts: eb('attempts', '+', 1),
        updated_at: nowIso,
        // Released rows have no lease; a row still holding one was abandoned by a dead worker.
        last_error: sql<string | null>`case when locked_until is null then last_error else ${o.takenBackMark} end`,
      }))
      .where('id', 'in', (eb) => {
        let q = eb
          .selectFrom('outbox')
          .select('id')
          .where('status', '=', 'pending')
          .where('run_at', '<=', nowIso)
          .where('kind', 'in', o.kinds)
          .where((w) => w.or([w('locked_until', 'is', null), w('locked_until', '<', nowIso)]))
          .orderBy('run_at')
          .limit(o.limit);
        if (o.skipLocked) q = q.forUpdate().skipLocked();
        return q;
      })
      .returningAll()
      .execute();
  },
  /** Marks the job done (in the handler's transaction when it passes one); false when the lease was lost. */
  async complete(db: Db, id: string, token: string, now: Date): Promise<boolean> {
    return (await completeJobQuery(db, id, token, now.toISOString())).length > 0;
  },
  /** Pushes the lease of a running job to `until`; false when the lease was lost. */
  async renew(db: Db, id: string, token: string, until: Date): Promise<boolean> {
    const r = await db
      .updateTable('outbox')
      .set({ locked_until: until.toISOString() })
      .where('id', '=', id)
      .where('locked_by', '=', token)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },
  /** A failed run: parked as `failed` (no `retryAt`), or pending again at `retryAt`. */
  async fail(db: Db, id: string, token: string, o: { message: string; now: Date; retryAt?: Date }): Promise<void> {
    await db
      .updateTable('outbox')
      .set({
        status: o.retryAt ? 'pending' : 'failed',
        locked_by: null,
        locked_until: null,
        last_error: o.message,
        updated_at: o.now.toISOString(),
        ...(o.retryAt ? { run_at: o.retryAt.toISOString() } : {}),
      })
      .where('id', '=', id)
      .where('locked_by', '=', token)
      .where('status', '=', 'pending')
      .execute();
  },
  /** Hands a claimed job back without a lease; `resetAttempts` for a follow-up that never ran. */
  async release(db: Db, id: string, token: string, resetAttempts: boolean): Promise<void> {
    await db
      .updateTable('outbox')
      .set({ locked_by: null, locked_until: null, ...(resetAttempts ? { attempts: 0 } : {}) })
      .where('id', '=', id)
      .where('locked_by', '=', token)
      .where('status', '=', 'pending')
      .execute();
  },
  /**
   * Up to `limit` parked (failed) rows parked before `cutoff` (`updated_at`: a parked row is written no
   * more), the oldest first; returns how many went. Their payloads hold personal data (LINE user ids and
   * text, reset addresses and IPs).
   */
  async pruneFailed(db: Db, cutoff: string, limit: number): Promise<number> {
    const r = await db
      .deleteFrom('outbox')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('outbox')
          .select('id')
          .where('status', '=', 'failed')
          .where('updated_at', '<', cutoff)
          .orderBy('updated_at')
          .limit(limit),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  },
  /**
   * Up to `limit` done rows last updated before `cutoff`, the oldest first (failed rows: `pruneFailed`,
   * after a longer retention); returns how many went. A busy week is tens of thousands of rows: one
   * unbounded delete held the SQLite writer (and a PostgreSQL transaction) for all of them.
   */
  async pruneDone(db: Db, cutoff: string, limit: number): Promise<number> {
    const r = await db
      .deleteFrom('outbox')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('outbox')
          .select('id')
          .where('status', '=', 'done')
          .where('updated_at', '<', cutoff)
          .orderBy('updated_at')
          .limit(limit),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  },
};

/**
 * Parked jobs for the operator (`slipcheck outbox failed`) and the metrics: failed rows, newest
 * first, with the reason they were parked. Never the payload (a password reset's holds an address).
 */
export async function listParked(db: Db, o: { kind?: string; limit: number }) {
  let q = db
    .selectFrom('outbox')
    .select(['id', 'kind', 'shop_id', 'attempts', 'last_error', 'created_at', 'updated_at'])
    .where('status', '=', 'failed');
  if (o.kind) q = q.where('kind', '=', o.kind);
  const rows = await q.orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(o.limit).execute();
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    shopId: r.shop_id,
    attempts: r.attempts,
    reason: r.last_error,
    cause: parkCause(r.last_error),
    createdAt: r.created_at,
    parkedAt: r.updated_at,
  }));
}

/** Why a job was parked: its payload did not match its kind's schema, or its handler kept failing. */
export type ParkCause = 'invalid_payload' | 'failed';
const parkCause = (lastError: string | null): ParkCause => (lastError?.startsWith(INVALID_PAYLOAD) ? 'invalid_payload' : 'failed');

/** Parked jobs by cause, for the `slipcheck_outbox_parked` gauge. */
export async function countParked(db: Db): Promise<Record<ParkCause, number>> {
  const rows = await db
    .selectFrom('outbox')
    .where('status', '=', 'failed')
    .select((eb) => [
      eb.fn.countAll<number>().as('all'),
      eb.fn.count<number>(eb.case().when('last_error', 'like', `${INVALID_PAYLOAD}%`).then(1).end()).as('invalid'),
    ])
    .executeTakeFirst();
  const invalid = Number(rows?.invalid ?? 0);
  return { invalid_payload: invalid, failed: Number(rows?.all ?? 0) - invalid };
}

/**
 * Makes a waiting job due now (a deferred job whose reason to wait has ended, e.g. a webhook round
 * that gave its slot back until a send to its endpoint finished). Only a free, pending job that is not
 * yet due moves; a job another worker holds, or that has run, is left alone.
 */
export async function expediteOutboxJob(db: Db, id: string, now: Date): Promise<void> {
  const nowIso = now.toISOString();
  await db
    .updateTable('outbox')
    .set({ run_at: nowIso, updated_at: nowIso })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('locked_by', 'is', null)
    .where('run_at', '>', nowIso)
    .execute();
  notifyOutbox();
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

/** Purge of an erased shop (housekeeping, composed in container.ts): this module's rows of the shop. */
export const purgeOutboxOfShop: ShopPurge = (trx, shopId) => deleteShopRows(trx, shopId, ['outbox']);
