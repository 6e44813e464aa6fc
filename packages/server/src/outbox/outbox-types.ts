import type { Db } from '../db/db.js';

/**
 * The job kinds and their payloads: kind -> payload. Empty here on purpose: the outbox is generic,
 * and each module adds the kinds it owns (the one whose handler runs them) next to its handler: the
 * payload's TypeBox schema, declared with `defineOutboxJob` (outbox-registry.ts, checked at enqueue
 * and at run), and its type from that schema by declaration merging, e.g.
 *
 *   export const WebhookDeliverJob = Type.Object({ deliveryId: Type.String(), round: Type.Integer() });
 *   defineOutboxJob('webhook.deliver', WebhookDeliverJob);
 *   declare module '../../outbox/outbox-types.js' {
 *     interface OutboxJobs { 'webhook.deliver': Static<typeof WebhookDeliverJob> }
 *   }
 *
 * The kind strings are stored in `outbox.kind`: never rename one that rows may still carry, and only
 * widen a schema (new optional fields): rows written by the previous version must still pass.
 * Payloads travel as JSON, so they hold only JSON values (dates as ISO strings).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface OutboxJobs {}

export type OutboxKind = keyof OutboxJobs & string;

/** A job to enqueue. */
export interface OutboxJob<K extends OutboxKind = OutboxKind> {
  kind: K;
  shopId?: string | null;
  payload: OutboxJobs[K];
  runAt?: Date;
}

/** A claimed job as its handler sees it. Its payload matched the kind's schema (a row that does not is parked, never run). */
export interface OutboxJobRow<K extends OutboxKind = OutboxKind> {
  id: string;
  kind: K;
  shopId: string | null;
  payload: OutboxJobs[K];
  /** Claims so far including this one (a takeback counts: a job that kills workers ends as failed). */
  attempts: number;
  runAt: string;
  createdAt: string;
  /** True when this claim took the job back from a worker whose lease ran out (it may have been mid-way). */
  takenBack: boolean;
  /**
   * A follow-up run straight after the handler that enqueued it (enqueueClaimed) carries what that
   * handler passed along in memory (rows it had just read or written), so it need not read them
   * again. Never stored: a job claimed from the table, or taken back, has none and reads for itself.
   */
  memo?: unknown;
}

export interface JobContext {
  workerId: string;
  claimToken: string;
  /** Aborted when the worker is stopped hard: the handler must stop and write nothing more. */
  signal: AbortSignal;
  now(): Date;
  /**
   * Marks the job done inside the handler's own transaction, so its effects and the completion
   * commit together (a crash between them cannot run the job twice). Throws LeaseLostError when
   * another worker took the job back meanwhile, which rolls the transaction back.
   */
  completeIn(trx: Db): Promise<void>;
  /**
   * Enqueues a follow-up job already claimed by this worker, which runs it as soon as this handler
   * succeeds (no claim query, no wait). If the worker dies first, the lease runs out and any worker
   * takes it back, so it is as durable as enqueueOutbox.
   */
  enqueueClaimed<K extends OutboxKind>(trx: Db, job: OutboxJob<K>, memo?: unknown): Promise<string>;
  /**
   * Extends this claim's lease (and the job's deadline) by another lease from now. For the rare job
   * that may outlast one lease by design (a scheduled task over every shop): call it between steps.
   * Throws LeaseLostError when another worker took the job back meanwhile.
   */
  renewLease(): Promise<void>;
}

export type OutboxHandler<K extends OutboxKind = OutboxKind> = (job: OutboxJobRow<K>, ctx: JobContext) => Promise<void>;

/** The registry the worker runs: at most one handler per kind, each typed by its own payload. */
export type OutboxHandlers = { [K in OutboxKind]?: OutboxHandler<K> };

/** Per kind: told once when a job of that kind is parked as failed, so its owner can record the outcome. */
export type OutboxFinalFailureHandlers = { [K in OutboxKind]?: (job: OutboxJobRow<K>, error: string) => Promise<void> };
