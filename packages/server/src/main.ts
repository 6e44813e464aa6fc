import { loadConfig, ConfigError } from './config.js';
import { createContainer } from './container.js';
import { buildApp } from './http/app.js';

/** config -> container -> app -> listen. `--worker` runs only the background worker (at scale). */
async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) { process.stderr.write(`${e.message}\n`); process.exit(78); }
    throw e;
  }
  const container = await createContainer(config);
  const app = await buildApp(container);
  const shutdown = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await container.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  app.addHook('onClose', async () => undefined);
  const address = await app.listen({ port: config.PORT, host: config.HOST });
  app.log.info(`slipcheck is running: dashboard ${address}/ , API ${address}/api/v1 (docs ${address}/api/v1/docs), database ${config.databaseKind}`);
  // Outbox jobs (webhooks, alerts) run here unless a separate `slipcheck worker` does it (WORKER_MODE=off).
  if (config.WORKER_MODE === 'inline') container.worker.start();
}

void main();
