import { SANDBOX_LOGIN_CHANNEL } from './dev-channel.js';
import { createSandboxLine } from './sandbox-line.js';

// Development-only peer started by `npm start` beside the service: production never starts it. The
// service reaches it through its LINE settings (development defaults in the service's config.ts).
const env = process.env;
const port = Number(env.SANDBOX_LINE_PORT ?? 3901);
const host = env.SANDBOX_HOST ?? '127.0.0.1';
// The service's public URL exactly as it computes it (its LINE Login callback must match to the letter).
const service = (env.PUBLIC_URL || `http://${env.HOST || '127.0.0.1'}:${env.PORT || 3000}`).replace(/\/+$/, '');
const bankUrl =
  (env.CHECKER ?? 'sandbox').split(',')[0] === 'sandbox'
    ? (env.CHECKER_URL ?? '').split(',')[0] || `http://127.0.0.1:${env.SANDBOX_PORT ?? 3900}`
    : undefined;

const line = await createSandboxLine({
  port,
  host,
  dataDir: env.DATA_DIR || './data',
  logger: { level: env.LOG_LEVEL ?? 'warn' },
  loginChannels: [
    {
      ...SANDBOX_LOGIN_CHANNEL,
      callbackUrls: [`${service}/api/dashboard/auth/line/callback`],
      liffEndpoint: `${service}/miniapp`,
    },
  ],
  simulator: { bankUrl },
});
console.log(`sandbox LINE platform listening on ${line.url}; LINE chat simulator: ${line.url}/`);

const stop = () => {
  line.close().then(
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
