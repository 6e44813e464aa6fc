import { createSandboxBank } from './sandbox-server.js';

// Development-only peer: production never starts this process.
const port = Number(process.env.SANDBOX_PORT ?? 3900);
const host = process.env.SANDBOX_HOST ?? '127.0.0.1';
const bank = await createSandboxBank({
  port,
  host,
  apiKey: process.env.SANDBOX_API_KEY || undefined,
  // The service's DATA_DIR (same default): demo slips made before a restart still verify after it.
  dataDir: process.env.DATA_DIR || './data',
  logger: { level: process.env.LOG_LEVEL ?? 'info' },
});
console.log(`sandbox bank listening on ${bank.url}${process.env.SANDBOX_API_KEY ? ' (checker API key required)' : ''}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    bank.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
