/**
 * One worker process for reports-summary.test.ts: opens the same database as the test (SQLite file in
 * DATA_DIR or a PostgreSQL schema), waits for GO_AT so both processes start together, then runs the
 * daily-summary scheduler and its outbox jobs for a few rounds, as a worker's maintenance timer would.
 */
import { loadConfig } from '../../src/config.js';
import { createContainer } from '../../src/container.js';
import { fixedClock } from '../../src/lib/clock.js';
import { createOutboxWorker } from '../../src/outbox/outbox-worker.js';
import { DAILY_SUMMARY_KIND } from '../../src/modules/reports/reports-summary.js';

const env = process.env;
const c = await createContainer(loadConfig(env), {
  clock: fixedClock(env.SUMMARY_NOW!),
  migrationSchema: env.MIGRATION_SCHEMA || undefined,
});
const worker = createOutboxWorker({
  db: c.db,
  caps: c.caps,
  clock: c.clock,
  handlers: { [DAILY_SUMMARY_KIND]: c.outboxHandlers[DAILY_SUMMARY_KIND] },
  workerId: env.WORKER_ID,
  concurrency: 4,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
await sleep(Math.max(0, Number(env.GO_AT) - Date.now()));
let queued = 0;
let ran = 0;
for (let i = 0; i < Number(env.ROUNDS ?? 15); i++) {
  queued += await c.reports.summary.scheduleDue();
  ran += await worker.runOnce();
  await sleep(5);
}
process.stdout.write(JSON.stringify({ queued, ran }) + '\n');
await c.close();
