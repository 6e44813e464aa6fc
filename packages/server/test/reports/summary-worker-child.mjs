/**
 * One worker process for reports-summary.test.ts: opens the same database as the test (SQLite file in
 * DATA_DIR or a PostgreSQL schema), waits for GO_AT so both processes start together, then runs the
 * daily-summary scheduler and its outbox jobs for a few rounds, as a worker's maintenance timer would.
 *
 * Plain JavaScript that loads the service from SERVICE_ROOT: `src` under tsx (a targeted run), or the
 * build `npm test` made moments before (`dist`, under --conditions=slipcheck-dist): a process then
 * starts in about half the CPU of tsx compiling the container's modules.
 */
const root = process.env.SERVICE_ROOT === 'dist' ? '../../dist' : '../../src';
const ext = root.endsWith('dist') ? 'js' : 'ts';
const { loadConfig } = await import(`${root}/config.${ext}`);
const { createContainer } = await import(`${root}/container.${ext}`);
const { fixedClock } = await import(`${root}/lib/clock.${ext}`);
const { createOutboxWorker } = await import(`${root}/outbox/outbox-worker.${ext}`);
const { DAILY_SUMMARY_KIND } = await import(`${root}/modules/reports/reports-summary.${ext}`);

const env = process.env;
const c = await createContainer(loadConfig(env), {
  clock: fixedClock(env.SUMMARY_NOW),
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
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
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
