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

const stop = () => {
  bank.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, stop);
// Started by `npm start` (scripts/start.js): if that parent is killed outright, nobody sends us a
// signal, and an orphan keeps the port (the next `npm start` fails with EADDRINUSE). The parent
// changing (not "parent is 1": normal in a container) means it is gone.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop();
}, 500).unref();
