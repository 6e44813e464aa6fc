// The service under benchmark, in its own process so the load generator does not share its CPU.
// Prints one JSON line {port, key} when ready. From src/ under tsx, or with BENCH_COMPILED=1 from
// dist/ under plain node (started with --conditions=slipcheck-dist), as start:prod runs it.
// BENCH_ROOT (absolute, or relative to this folder): another compiled build inside packages/server,
// e.g. a copy of dist/ from an earlier commit, which ab-replay.ts measures against the current one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = process.env.BENCH_ROOT ?? (process.env.BENCH_COMPILED ? '../dist' : '../src');
const { loadConfig } = await import(`${root}/config.js`);
const { createContainer } = await import(`${root}/container.js`);
const { buildApp } = await import(`${root}/http/app.js`);

const { createServiceLogger } = await import(`${root}/http/service-logger.js`);
const { applyHeapGrowth } = await import(`${root}/lib/heap-growth.js`);
const { startMetricsServer } = await import(`${root}/lib/metrics.js`);
const { pino } = await import('pino');

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-bench-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  CHECKER_URL: process.env.CHECKER_URL,
  RATE_LIMIT_PER_KEY: '100000000',
  RATE_LIMIT_VERIFY_PER_SHOP: '100000000',
  WORKER_MODE: 'off',
  SANDBOX_AUTOSTART: 'false',
  DATABASE_URL: process.env.DATABASE_URL ?? '',
  HEAP_GROWING_PERCENT: process.env.HEAP_GROWING_PERCENT ?? '',
  // The bench's SLIP_EDIT_MODE reaches the service (unset: the default, reject, which reads every slip).
  ...(process.env.SLIP_EDIT_MODE ? { SLIP_EDIT_MODE: process.env.SLIP_EDIT_MODE } : {}),
  // The bench's second replay row runs a service with REPLAY_MEMORY_MS=0 (every replay reads the database).
  ...(process.env.REPLAY_MEMORY_MS ? { REPLAY_MEMORY_MS: process.env.REPLAY_MEMORY_MS } : {}),
});
// As main.ts does: HEAP_GROWING_PERCENT (default 100) from the environment.
applyHeapGrowth(config.HEAP_GROWING_PERCENT);
// BENCH_LOG_LEVEL=info: the production access log (two lines per request), written to /dev/null
// synchronously as pino writes to stdout; unset, the service logs nothing (the figures in docs/benchmarks.md).
const logLevel = process.env.BENCH_LOG_LEVEL;
const c = await createContainer(
  config,
  logLevel ? { logger: createServiceLogger(logLevel, pino.destination({ dest: '/dev/null', sync: true })) } : {},
);
const app = await buildApp(c, logLevel ? {} : { logger: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const shop = await c.shops.create({ name: 'bench', planCode: 'BUSINESS' }, 'bench');
await c.payees.add(shop.id, { bankCode: '004', accountNumber: '1234566609', holder: 'ร้านทดสอบ' }, 'bench');
const { key } = await c.apiKeys.create(shop.id, { environment: 'live', scopes: 'verify,read' }, 'bench');
// The bench reads the service's garbage collections from its Prometheus metrics, as an operator would.
const metrics = await startMetricsServer(0, '127.0.0.1');
process.stdout.write(JSON.stringify({ port: app.server.address().port, key, metricsPort: metrics.port }) + '\n');
const stop = async () => {
  await app.close();
  await metrics.close();
  await c.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
