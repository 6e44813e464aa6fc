import { Type, type Static } from 'typebox';
import type { Db } from '../db/db.js';
import type { Clock } from '../lib/clock.js';
import { enqueueOutboxOnce } from './outbox-repo.js';
import { defineOutboxJob } from './outbox-registry.js';
import type { OutboxHandler } from './outbox-types.js';

/**
 * Scheduled tasks (retention, anonymisation, purges, the daily summary trigger): one run per time
 * slot across all worker nodes. Every node looks at the clock a few times per slot and, on seeing a
 * new slot, inserts that slot's job under a deterministic key (`housekeeping:2026-11-25T23`); the
 * key is unique in the outbox (insert-or-ignore), so however many nodes look, one job exists per task
 * and slot, and the outbox runs it once with its usual claim, lease and retry. A node that starts in
 * the middle of a slot inserts it too: the first node of a fresh install runs each task at once, a
 * restart or a new node within the same slot runs nothing again.
 *
 * Slots are aligned to the epoch (UTC hours for an hour, UTC minutes for a minute), so every node
 * computes the same id from its own clock; clocks a little apart only move when a slot starts.
 */
export const SCHEDULED_JOB = 'outbox.scheduled';

export const ScheduledJobSchema = Type.Object({
  task: Type.String({ minLength: 1, maxLength: 100 }),
  slot: Type.String({ minLength: 1, maxLength: 100 }),
});
defineOutboxJob(SCHEDULED_JOB, ScheduledJobSchema);

declare module './outbox-types.js' {
  interface OutboxJobs {
    'outbox.scheduled': Static<typeof ScheduledJobSchema>;
  }
}

export interface ScheduledTask {
  /** Stable name, part of the slot key: never rename one (a rename runs it twice in the slot of the upgrade). */
  name: string;
  /** Slot length: one run per slot across all nodes. */
  everyMs: number;
  /**
   * The task. Idempotent (a run cut off by a crash is run again by the next claim). One that may
   * outlast a worker lease (`WORKER_LEASE_MS`) calls `renewLease` between its steps.
   */
  run: (renewLease: () => Promise<void>) => Promise<unknown>;
}

/**
 * The slot `now` falls in: its id names the slot at the precision of its length (`2026-11-25T23` for an
 * hour, `2026-11-25T23:41` for a minute, full seconds or milliseconds for the short slots of tests).
 */
export function slotOf(everyMs: number, now: Date): { id: string; start: Date } {
  const start = new Date(Math.floor(now.getTime() / everyMs) * everyMs);
  const iso = start.toISOString(); // 2026-11-25T23:41:06.500Z
  const id =
    everyMs % 3_600_000 === 0
      ? iso.slice(0, 13)
      : everyMs % 60_000 === 0
        ? iso.slice(0, 16)
        : everyMs % 1000 === 0
          ? iso.slice(0, 19)
          : iso.slice(0, 23);
  return { id, start };
}

export const slotKey = (task: string, slot: string) => `${task}:${slot}`;

export interface Scheduler {
  /** Looks at the clock: inserts the job of each task whose slot is new to this node. Returns how many this node inserted. */
  tick(): Promise<number>;
  /** How often `tick` should run: a quarter of the shortest slot, at most 15 s. */
  readonly tickMs: number;
  /** The outbox handler of `outbox.scheduled`: runs the named task. */
  handler: OutboxHandler<typeof SCHEDULED_JOB>;
  readonly tasks: readonly ScheduledTask[];
}

export function createScheduler(deps: {
  db: Db;
  clock: Clock;
  tasks: readonly ScheduledTask[];
  /** The workers' lease (WORKER_LEASE_MS): a task's `renewLease` calls reach the database once a third of it at most. */
  leaseMs: number;
  log?: { info(o: object, msg: string): void; debug(o: object, msg: string): void };
}): Scheduler {
  const { db, clock, tasks } = deps;
  const byName = new Map(tasks.map((t) => [t.name, t]));
  if (byName.size !== tasks.length) throw new Error('scheduled task names must be unique');
  const seen = new Map<string, string>(); // task -> last slot this node inserted or found
  const tickMs = Math.max(50, Math.min(15_000, Math.floor(Math.min(...tasks.map((t) => t.everyMs)) / 4)));

  return {
    tasks,
    tickMs,
    async tick() {
      const now = clock.now();
      let inserted = 0;
      for (const t of tasks) {
        const slot = slotOf(t.everyMs, now).id;
        if (seen.get(t.name) === slot) continue;
        const id = await enqueueOutboxOnce(
          db,
          { kind: SCHEDULED_JOB, payload: { task: t.name, slot }, dedupeKey: slotKey(t.name, slot) },
          now,
        );
        seen.set(t.name, slot);
        if (id) inserted++;
        deps.log?.debug({ task: t.name, slot, queued: !!id }, id ? 'scheduled slot queued' : 'scheduled slot already queued');
      }
      return inserted;
    },
    handler: async (job, ctx) => {
      const task = byName.get(job.payload.task);
      // A task this version no longer has (renamed or removed while its slot was queued): nothing to run.
      if (!task) return;
      const t0 = Date.now();
      let renewed = t0;
      await task.run(async () => {
        if (Date.now() - renewed < deps.leaseMs / 3) return;
        await ctx.renewLease();
        renewed = Date.now();
      });
      deps.log?.info({ task: task.name, slot: job.payload.slot, jobId: job.id, ms: Date.now() - t0 }, 'scheduled task ran');
    },
  };
}
