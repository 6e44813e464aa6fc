import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Db, DbCapabilities } from '../db/db.js';
import { deleteInBatches } from '../db/batched-delete.js';
import type { Clock } from '../lib/clock.js';
import { insertOutboxJob, outboxClaims, outboxSignal } from './outbox-repo.js';
import { INVALID_PAYLOAD, isDeclaredOutboxKind, payloadProblem } from './outbox-registry.js';
import type {
  JobContext,
  OutboxFinalFailureHandlers,
  OutboxHandler,
  OutboxHandlers,
  OutboxJobRow,
  OutboxJobs,
  OutboxKind,
} from './outbox-types.js';

/**
 * The generic outbox worker: claims due rows, runs the handler registered for their kind, and
 * retries failures with backoff.
 *
 * Claim (`outboxClaims.claimDue` in outbox-repo.ts, which holds every statement on the table): one
 * UPDATE ... WHERE id IN (SELECT due rows LIMIT n) RETURNING, which sets a lease
 * (`locked_by` = a fresh claim token, `locked_until`). PostgreSQL adds FOR UPDATE SKIP LOCKED so
 * concurrent workers skip each other's rows instead of queueing on them; SQLite runs the same
 * statement atomically under its single writer. A row whose lease ran out (its worker died) is due
 * again, so the next claim takes it back. Every completion is fenced on the claim token: a worker
 * that lost its lease cannot mark a job done that another worker now owns.
 *
 * Latency: `enqueueOutbox` signals workers in the same process, which claim at once and re-check a
 * few times shortly after (the signal usually fires before the producer commits). Otherwise the
 * worker polls every `pollMs`, so an idle worker costs one cheap indexed query per poll.
 */
export type { JobContext, OutboxHandler, OutboxHandlers, OutboxJobRow } from './outbox-types.js';

export class LeaseLostError extends Error {
  constructor(jobId: string) {
    super(`outbox job ${jobId}: lease lost to another worker`);
    this.name = 'LeaseLostError';
  }
}

export interface OutboxWorkerOptions {
  db: Db;
  caps: DbCapabilities;
  clock: Clock;
  /** Read at every claim: kinds without a handler are left for a worker that has one. */
  handlers: OutboxHandlers;
  workerId?: string;
  leaseMs?: number;
  pollMs?: number;
  /** Rows claimed per query. */
  batch?: number;
  /** Jobs running at the same time. */
  concurrency?: number;
  /** Claims after which a job whose handler keeps throwing is marked failed. */
  maxAttempts?: number;
  /** Per kind: told once when a job of that kind is parked as failed, so its owner can record the outcome. */
  onFinalFailure?: OutboxFinalFailureHandlers;
  /** Delay before the next try of a job whose handler threw (attempts = claims so far). */
  retryDelayMs?: (attempts: number) => number;
  /** Done rows are deleted after this by `pruneDone` (a scheduled task; failed rows are kept for the operator). */
  doneRetentionMs?: number;
  /**
   * Parked (failed) rows are deleted this long after they were parked by `pruneFailed` (a scheduled
   * task): long enough for the operator to see them (`slipcheck outbox failed`, the
   * `slipcheck_outbox_parked` gauge) and act, not forever (their payloads hold personal data).
   */
  failedRetentionMs?: number;
  /**
   * Periodic work of this node, run by every started worker: the scheduler's clock tick
   * (outbox-schedule.ts), sweeps that must not wait for any other node. Work that must run once
   * across all nodes is a scheduled task, not an entry here.
   */
  maintenance?: Array<{ everyMs: number; run: () => Promise<unknown> }>;
  onError?: (err: unknown, job?: OutboxJobRow) => void;
}

export interface OutboxWorker {
  readonly workerId: string;
  start(): void;
  /** Graceful: stop claiming, wait for running jobs (up to timeoutMs), abort the rest. `abandon`: abort at once and write nothing (crash simulation). */
  stop(opts?: { timeoutMs?: number; abandon?: boolean }): Promise<void>;
  /** Claims one batch and runs it to the end; returns the number of jobs run. For tests and the CLI. */
  runOnce(): Promise<number>;
  /** Look for due rows now. */
  wake(): void;
  /** Deletes done jobs older than `doneRetentionMs`, in bounded batches (`renew` between them). */
  pruneDone(renew?: () => Promise<void>): Promise<number>;
  /** Deletes parked jobs older than `failedRetentionMs`, in bounded batches (`renew` between them). */
  pruneFailed(renew?: () => Promise<void>): Promise<number>;
  readonly stats: { claimed: number; done: number; retried: number; failed: number };
}

/** Days a parked (failed) job is kept after it was parked, for the operator (`failedRetentionMs`). */
export const FAILED_RETENTION_DAYS = 30;

const FOLLOW_UP_MS = [10, 40, 150, 400];
/**
 * A job running longer than this is not counted on to free its slot soon (see pump's refill rule): a
 * send to a receiver that fell silent holds its slot up to a whole webhook timeout, a LINE slip check
 * for seconds.
 */
const ENDS_SOON_MS = 50;
const defaultRetryDelay = (attempts: number) => Math.min(3_600_000, 1000 * 2 ** Math.min(attempts, 20)) * (0.8 + Math.random() * 0.4);

export function createOutboxWorker(opts: OutboxWorkerOptions): OutboxWorker {
  const { db, caps, clock, handlers } = opts;
  // kind -> schema + handler: a handler for a kind whose payload schema nobody declared is a wiring bug.
  const undeclared = Object.keys(handlers).filter((k) => !isDeclaredOutboxKind(k));
  if (undeclared.length) throw new Error(`outbox handlers without a payload schema (defineOutboxJob): ${undeclared.join(', ')}`);
  const workerId = opts.workerId ?? `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const leaseMs = opts.leaseMs ?? 60_000;
  const pollMs = opts.pollMs ?? 1000;
  const batch = opts.batch ?? 20;
  const concurrency = Math.max(1, opts.concurrency ?? 32);
  const maxAttempts = opts.maxAttempts ?? 10;
  const retryDelayMs = opts.retryDelayMs ?? defaultRetryDelay;
  const doneRetentionMs = opts.doneRetentionMs ?? 7 * 86_400_000;
  const failedRetentionMs = opts.failedRetentionMs ?? FAILED_RETENTION_DAYS * 86_400_000;
  const onError = opts.onError ?? (() => undefined);
  const stats = { claimed: 0, done: 0, retried: 0, failed: 0 };

  const inFlight = new Map<string, { promise: Promise<void>; abort: AbortController; job: OutboxJobRow; startedAt: number }>();
  let running = false;
  let stopping = false;
  let pumping = false;
  let pumpAgain = false;
  let moreWaiting = false;
  // The last claim filled every slot it asked for: more rows are probably due. While that holds the
  // worker claims again only once half a batch of slots is free, not after every finished job: one
  // claim statement per ~batch/2 jobs instead of one per job under a backlog (issue 24). Without a
  // backlog it claims at once, so a new job never waits for busy slots to drain. Nor does it wait for
  // slots held by long jobs (endingSoon): with a quarter of the slots left beside a silent webhook
  // receiver's sends, the free ones stayed idle until those timed out, and another shop's webhook
  // waited a whole WEBHOOK_TIMEOUT_MS.
  let backlog = false;
  const refill = Math.max(1, Math.floor(Math.min(batch, concurrency) / 2));
  let followUps = 0;
  let timer: NodeJS.Timeout | null = null;
  let timerDue = 0;
  const intervals: NodeJS.Timeout[] = [];

  function schedule(ms: number) {
    if (!running) return;
    const due = Date.now() + ms;
    if (timer && timerDue <= due) return;
    if (timer) clearTimeout(timer);
    timerDue = due;
    timer = setTimeout(() => {
      timer = null;
      void pump();
    }, ms);
    timer.unref();
  }

  async function claim(limit: number): Promise<OutboxJobRow[]> {
    const kinds = Object.keys(handlers);
    if (!kinds.length || limit <= 0) return [];
    const now = clock.now();
    const token = `${workerId}#${randomBytes(6).toString('hex')}`;
    const rows = await outboxClaims.claimDue(db, {
      kinds,
      limit,
      token,
      now,
      leaseMs,
      skipLocked: caps.skipLocked,
      takenBackMark: TAKEN_BACK,
    });
    stats.claimed += rows.length;
    return rows.map((r) => {
      let payload: unknown = null;
      let problem: string | null;
      try {
        payload = JSON.parse(r.payload);
        problem = payloadProblem(r.kind, payload);
      } catch {
        problem = 'not JSON';
      }
      return Object.assign(
        {
          id: r.id,
          // The row boundary: the payload is checked against the kind's schema here (`problem`); launch parks a mismatch unrun.
          kind: r.kind as OutboxKind,
          shopId: r.shop_id,
          payload: payload as OutboxJobs[OutboxKind],
          attempts: r.attempts,
          runAt: r.run_at,
          createdAt: r.created_at,
          takenBack: r.last_error === TAKEN_BACK,
        },
        { [TOKEN]: token, [PROBLEM]: problem },
      );
    });
  }

  async function finish(trx: Db, job: OutboxJobRow): Promise<boolean> {
    return outboxClaims.complete(trx, job.id, tokenOf(job), clock.now());
  }

  /** `park`: no retry whatever the attempts, and no final-failure handler (its payload cannot be trusted). */
  async function fail(job: OutboxJobRow, err: unknown, park = false) {
    const now = clock.now();
    const final = park || job.attempts >= maxAttempts;
    const message = (err instanceof Error ? err.message : String(err)).slice(0, 500);
    await outboxClaims.fail(db, job.id, tokenOf(job), {
      message,
      now,
      retryAt: final ? undefined : new Date(now.getTime() + retryDelayMs(job.attempts)),
    });
    if (final) {
      stats.failed++;
      if (park) return;
      const onFailed = opts.onFinalFailure?.[job.kind] as ((j: OutboxJobRow, error: string) => Promise<void>) | undefined;
      await onFailed?.(job, message).catch((e) => onError(e, job));
    } else stats.retried++;
  }

  /** Hands claimed jobs back (no lease): adopted follow-ups never ran (attempts back to 0); cut-off ones keep theirs. */
  async function release(jobs: OutboxJobRow[], resetAttempts = true) {
    for (const j of jobs) {
      await outboxClaims.release(db, j.id, tokenOf(j), resetAttempts);
    }
  }

  function launch(job: OutboxJobRow): Promise<void> {
    const abort = new AbortController();
    let completed = false;
    const adopted: OutboxJobRow[] = [];
    let deadline: NodeJS.Timeout | undefined;
    let leaseEnds = Date.now() + leaseMs;
    const ctx: JobContext = {
      async enqueueClaimed(trx, j, memo) {
        const now = clock.now();
        const { id, runAt } = await insertOutboxJob(trx, j, now, { token: tokenOf(job), until: new Date(now.getTime() + leaseMs) });
        adopted.push(
          Object.assign(
            {
              id,
              kind: j.kind,
              shopId: j.shopId ?? null,
              payload: j.payload,
              attempts: 1,
              runAt,
              createdAt: now.toISOString(),
              takenBack: false,
              memo,
            },
            { [TOKEN]: tokenOf(job) },
          ),
        );
        return id;
      },
      workerId,
      claimToken: tokenOf(job),
      signal: abort.signal,
      now: () => clock.now(),
      async completeIn(trx) {
        if (!(await finish(trx, job))) throw new LeaseLostError(job.id);
        completed = true;
      },
      async renewLease() {
        const ends = Date.now() + leaseMs;
        if (!(await outboxClaims.renew(db, job.id, tokenOf(job), new Date(clock.now().getTime() + leaseMs))))
          throw new LeaseLostError(job.id);
        leaseEnds = ends;
      },
    };
    const promise = (async () => {
      try {
        if (job.takenBack && job.attempts > maxAttempts) {
          // Every earlier claim died with its worker (a crash, OOM or hang on this job): running it
          // again would only take down the next worker too. Park it as failed for the operator.
          await fail(job, new Error(`${TAKEN_BACK} ${job.attempts - 1} times; not run again`));
          return;
        }
        const problem = (job as unknown as Record<symbol, string | null>)[PROBLEM];
        if (problem) {
          // Written by an older version or edited by hand: no retry can fix it. Parked with its reason
          // (`slipcheck outbox failed`, the slipcheck_outbox_parked gauge) after this one attempt.
          await fail(job, new Error(`${INVALID_PAYLOAD}: ${problem}`), true);
          return;
        }
        // The registry pairs each kind with its own payload type, and the payload matched its schema.
        const handler = handlers[job.kind] as OutboxHandler | undefined;
        if (!handler) throw new Error(`no handler for ${job.kind}`);
        // The lease is also the job's deadline: once it runs out another worker may take the job
        // back, so a handler still running here is told to stop (signal) and its slot is freed; a
        // job that hangs every time ends parked as failed (above) instead of eating all slots.
        const run = handler(job, ctx);
        run.catch(() => undefined); // a late rejection after the deadline is nobody's business
        const overrun = new Promise<void>((resolve) => {
          const arm = () => {
            deadline = setTimeout(() => {
              if (Date.now() < leaseEnds) return arm(); // renewed meanwhile (ctx.renewLease)
              onError(new Error(`outbox job ${job.id} (${job.kind}) ran past its lease; left for takeback`), job);
              abort.abort(new Error('lease expired'));
              resolve();
            }, leaseEnds - Date.now());
            deadline.unref();
          };
          arm();
        });
        await Promise.race([run, overrun]);
        if (abort.signal.aborted) return;
        if (!completed) await finish(db, job);
        stats.done++;
        if (!stopping) for (const a of adopted) void launch(a);
        else if (adopted.length) await release(adopted); // stopping: let any worker take them now, not after the lease
      } catch (e) {
        if (abort.signal.aborted || e instanceof LeaseLostError) return;
        onError(e, job);
        await fail(job, e).catch((e2) => onError(e2, job));
      }
    })().finally(() => {
      clearTimeout(deadline);
      inFlight.delete(job.id);
      if (moreWaiting && running) {
        moreWaiting = false;
        // On the next turn of the event loop, not in this promise chain: on SQLite (synchronous under
        // its promises) jobs that do no I/O of their own (fan-outs, deferred webhook rounds) completed
        // and claimed the next ones in one unbroken chain of microtasks, and the process's sockets
        // (webhook answers, API requests in inline mode) waited until the backlog was gone.
        setImmediate(() => void pump());
      }
    });
    inFlight.set(job.id, { promise, abort, job, startedAt: performance.now() });
    return promise;
  }

  /** Running jobs that started less than ENDS_SOON_MS ago: the ones a refill may wait for. */
  function endingSoon(): number {
    const now = performance.now();
    let n = 0;
    for (const f of inFlight.values()) if (now - f.startedAt < ENDS_SOON_MS) n++;
    return n;
  }

  async function pump(): Promise<void> {
    if (!running) return;
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = true;
    let sawWork = false;
    try {
      for (;;) {
        pumpAgain = false;
        const free = concurrency - inFlight.size;
        if (free <= 0 || (backlog && free < refill && free + endingSoon() >= refill)) {
          moreWaiting = true;
          // Free slots kept for a refill: claimed anyway once the jobs counted on have run long.
          if (free > 0) schedule(ENDS_SOON_MS);
          break;
        }
        const want = Math.min(batch, free);
        const jobs = await claim(want);
        backlog = jobs.length === want;
        if (!running) {
          for (const j of jobs) void launch(j);
          break;
        }
        for (const j of jobs) void launch(j);
        if (jobs.length) sawWork = true;
        if (jobs.length < want && !pumpAgain) break;
        // Let I/O in between batches (see launch: on SQLite a backlog of jobs without I/O is one chain of microtasks).
        await new Promise<void>((r) => setImmediate(r));
      }
    } catch (e) {
      onError(e);
    } finally {
      pumping = false;
    }
    if (!running) return;
    if (sawWork) followUps = Math.max(followUps, 1); // work tends to arrive in bursts: look again soon
    if (followUps > 0) {
      const step = FOLLOW_UP_MS[Math.max(0, FOLLOW_UP_MS.length - followUps)];
      followUps--;
      schedule(step);
    } else {
      schedule(pollMs);
    }
  }

  const onSignal = () => worker.wake();

  const worker: OutboxWorker = {
    workerId,
    stats,
    start() {
      if (running) return;
      running = true;
      stopping = false;
      outboxSignal.on('enqueued', onSignal);
      for (const m of opts.maintenance ?? []) {
        const t = setInterval(() => {
          void m.run().catch((e) => onError(e));
        }, m.everyMs);
        t.unref();
        intervals.push(t);
      }
      schedule(0);
    },
    wake() {
      if (!running) return;
      followUps = FOLLOW_UP_MS.length;
      schedule(1);
    },
    async stop(o = {}) {
      running = false;
      stopping = true;
      outboxSignal.off('enqueued', onSignal);
      if (timer) {
        clearTimeout(timer);
        timer = null;
      }
      for (const t of intervals.splice(0)) clearInterval(t);
      if (o.abandon) {
        for (const f of inFlight.values()) f.abort.abort(new Error('worker killed'));
      } else {
        const all = Promise.allSettled([...inFlight.values()].map((f) => f.promise));
        const timeout = new Promise<void>((r) => {
          const t = setTimeout(r, o.timeoutMs ?? 15_000);
          t.unref();
        });
        await Promise.race([all, timeout]);
        const cut = [...inFlight.values()];
        for (const f of cut) f.abort.abort(new Error('worker stopped'));
        await Promise.allSettled(cut.map((f) => f.promise));
        // Jobs cut off wrote nothing (aborted handlers stop): hand them back now rather than after the lease.
        await release(
          cut.map((f) => f.job),
          false,
        ).catch((e) => onError(e));
      }
      await Promise.allSettled([...inFlight.values()].map((f) => f.promise));
    },
    async runOnce() {
      const jobs = await claim(batch);
      await Promise.all(jobs.map((j) => launch(j)));
      return jobs.length;
    },
    async pruneDone(renew) {
      const cutoff = new Date(clock.now().getTime() - doneRetentionMs).toISOString();
      return deleteInBatches((limit) => outboxClaims.pruneDone(db, cutoff, limit), renew);
    },
    async pruneFailed(renew) {
      const cutoff = new Date(clock.now().getTime() - failedRetentionMs).toISOString();
      return deleteInBatches((limit) => outboxClaims.pruneFailed(db, cutoff, limit), renew);
    },
  };
  return worker;
}

const TOKEN = Symbol('claimToken');
/** Why a claimed row's payload does not match its kind's schema, or null. */
const PROBLEM = Symbol('payloadProblem');
const TAKEN_BACK = 'lease expired: taken back from a stopped worker';
const tokenOf = (job: OutboxJobRow): string => (job as unknown as Record<symbol, string>)[TOKEN];
