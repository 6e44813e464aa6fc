import { loadConfig, ConfigError, productionWarnings, type Config } from './config.js';
import { createContainer } from './container.js';
import { DatabaseStartError } from './db/db.js';
import { buildApp } from './http/app.js';
import { createDrain } from './http/drain.js';
import { readTlsFiles, reloadTls } from './http/tls.js';
import { applyHeapGrowth } from './lib/heap-growth.js';
import { startMetricsServer } from './lib/metrics.js';
import { watchParent } from './lib/parent-watch.js';

/** METRICS_PORT: set = that port; empty = 9464 in development, off in production (and in tests). */
function metricsPortOf(config: Config): number | null {
  if (config.METRICS_PORT !== '') return Number(config.METRICS_PORT);
  return config.NODE_ENV === 'development' ? 9464 : null;
}

/** config -> container -> app -> listen, plus the metrics listener, TLS reload and graceful drain. */
async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(78);
    }
    throw e;
  }
  let https;
  try {
    https = config.TLS_CERT_FILE ? readTlsFiles(config.TLS_CERT_FILE, config.TLS_KEY_FILE) : undefined;
  } catch (e) {
    process.stderr.write(`TLS_CERT_FILE/TLS_KEY_FILE: ${(e as Error).message}\n`);
    process.exit(78);
  }
  applyHeapGrowth(config.HEAP_GROWING_PERCENT);
  let container;
  try {
    container = await createContainer(config);
  } catch (e) {
    // A database that cannot be reached or opened at start: one line naming the variable, no stack.
    if (e instanceof ConfigError || e instanceof DatabaseStartError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(e instanceof ConfigError ? 78 : 1);
    }
    throw e;
  }
  let draining = false;
  const app = await buildApp(container, { https, draining: () => draining });

  const metricsPort = metricsPortOf(config);
  let metricsServer: Awaited<ReturnType<typeof startMetricsServer>> | null = null;
  if (metricsPort !== null) {
    try {
      metricsServer = await startMetricsServer(metricsPort, config.HOST);
      app.log.info(`metrics on http://${config.HOST}:${metricsServer.port}/metrics`);
    } catch (e) {
      // An operator who set METRICS_PORT wants it: refuse to start. The development default just steps aside.
      if (config.METRICS_PORT !== '') {
        process.stderr.write(`METRICS_PORT=${config.METRICS_PORT}: ${(e as Error).message}\n`);
        process.exit(78);
      }
      app.log.warn(`metrics not started on port ${metricsPort}: ${(e as Error).message}`);
    }
  }

  const drain = createDrain({
    app,
    container,
    log: app.log,
    graceMs: config.SHUTDOWN_GRACE_MS,
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    onDraining: () => {
      draining = true;
    },
    afterClose: async () => {
      await metricsServer?.close();
    },
  });
  process.once('SIGTERM', () => void drain.run('SIGTERM'));
  // Ctrl-C in a terminal: no load balancer to tell, so no grace period.
  process.once('SIGINT', () => void drain.run('SIGINT', { graceMs: 0 }));
  if (https) process.on('SIGHUP', () => reloadTls(app, config.TLS_CERT_FILE, config.TLS_KEY_FILE));
  // Under `npm start` (scripts/start.js sets this for its children): when start.js is gone (SIGKILL,
  // its own parent chain killed), stop rather than keep the port. Not by default: a production
  // service backgrounded by a shell script that then exits must keep running.
  if (process.env.SLIPCHECK_EXIT_WITH_PARENT === '1') watchParent(() => void drain.run('parent process gone', { graceMs: 0 }));

  const address = await app.listen({ port: config.PORT, host: config.HOST });
  app.log.info(
    `slipcheck is running: dashboard ${address}/ , API ${address}/api/v1 (docs ${address}/api/v1/docs), database ${config.databaseKind}`,
  );
  for (const w of productionWarnings(config)) app.log.warn(w);
  // Outbox jobs (webhooks, alerts) run here unless a separate `slipcheck worker` does it (WORKER_MODE=off).
  // There is no worker-only flag here: a worker-only process is `slipcheck worker` (outbox/outbox-cli.ts).
  container.startDecoders();
  if (config.WORKER_MODE === 'inline') container.worker.start();
  container.startCheckerPolling();
}

void main();
