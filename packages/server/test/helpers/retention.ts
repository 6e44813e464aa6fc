import { expect } from 'vitest';
import { PRUNE_BATCH } from '../../src/db/batched-delete.js';
import type { ServiceHarness } from './harness.js';

/**
 * The container's hourly scheduled tasks, as the outbox runs them once per hour across all nodes
 * (container.ts, outbox-schedule.ts). `renew` counts the lease renewals a task asks for.
 */
export async function runHourlyTasks(h: ServiceHarness, renew: () => Promise<void> = async () => undefined) {
  for (const t of h.c.scheduler.tasks) if (t.everyMs >= 3_600_000) await t.run(renew);
}

/**
 * Runs the scheduled task `name` as the outbox would, recording at each lease renewal how many of the
 * rows it must delete are left (`left`): renewed before every batch, no batch larger than PRUNE_BATCH.
 */
export async function runCounting(h: ServiceHarness, name: string, left: () => Promise<number>) {
  const leftAtRenewal: number[] = [];
  const task = h.c.scheduler.tasks.find((t) => t.name === name);
  expect(task, `scheduled task ${name}`).toBeDefined();
  await task!.run(async () => {
    leftAtRenewal.push(await left());
  });
  return leftAtRenewal;
}

/** A backlog of `n` rows made by `row(i)`, inserted 100 at a time (SQLite's bound-variable limit). */
export async function insertMany<T>(n: number, row: (i: number) => T, insert: (rows: T[]) => Promise<unknown>) {
  const rows = Array.from({ length: n }, (_, i) => row(i));
  for (let i = 0; i < rows.length; i += 100) await insert(rows.slice(i, i + 100));
}

/**
 * What a batched prune of a backlog of `before` rows leaves at its renewals: one batch less each time.
 * `more`: the task may renew again after (it prunes more than this table), with nothing of it left.
 */
export function expectBatched(leftAtRenewal: number[], before: number, opts: { more?: boolean } = {}) {
  expect(before).toBeGreaterThan(PRUNE_BATCH);
  const batches = Math.floor(before / PRUNE_BATCH) + 1;
  if (opts.more) expect(leftAtRenewal.length).toBeGreaterThanOrEqual(batches);
  else expect(leftAtRenewal.length).toBe(batches);
  leftAtRenewal.slice(0, batches).forEach((left, i) => expect(left).toBe(Math.max(0, before - i * PRUNE_BATCH)));
  leftAtRenewal.slice(batches).forEach((left) => expect(left).toBe(0));
}
