import { flags, optionalInt } from '../cli/cli-args.js';
import type { ModuleCommand } from '../cli/cli-command.js';
import type { Db } from '../db/db.js';
import { watchParent } from '../lib/parent-watch.js';
import { listParked } from './outbox-repo.js';
import type { OutboxHandlers } from './outbox-types.js';
import type { OutboxWorker } from './outbox-worker.js';

/**
 * `slipcheck worker`: the outbox worker as its own process (the service runs with WORKER_MODE=off).
 * Registered into cli.ts's extraCommands (this file does not import cli.ts, so there is no import cycle).
 * The service itself has no worker-only flag: run this command instead.
 */
export const WORKER_USAGE = `  worker                                        (run the outbox worker until SIGTERM or its parent process exits; use with WORKER_MODE=off on the service)
  outbox failed [--kind K] [--limit N]          (parked jobs, newest first, with the reason: invalid payload or a handler that kept failing)`;

/** What the worker command needs from the container. */
export interface WorkerProcessDeps {
  worker: OutboxWorker;
  outboxHandlers: OutboxHandlers;
  config: { WEBHOOK_TIMEOUT_MS: number };
}

/** Runs the worker until `until` resolves (SIGTERM/SIGINT in the CLI), then stops it gracefully. */
export async function runWorkerUntil(
  deps: WorkerProcessDeps,
  until: Promise<unknown>,
  log: (s: string) => void = () => undefined,
): Promise<void> {
  const { worker } = deps;
  worker.start();
  const keepAlive = setInterval(() => undefined, 60_000); // worker timers are unref'd; this process lives for the worker
  log(`worker ${worker.workerId} started (kinds: ${Object.keys(deps.outboxHandlers).join(', ')})`);
  await until;
  clearInterval(keepAlive);
  log('stopping: finishing running jobs');
  // A webhook send is the longest job that should still finish; anything longer is handed back.
  await worker.stop({ timeoutMs: deps.config.WEBHOOK_TIMEOUT_MS + 2000 });
  log(`stopped ${JSON.stringify(worker.stats)}`);
}

export const workerCommand: ModuleCommand<WorkerProcessDeps> = {
  usage: `Usage:\n${WORKER_USAGE}`,
  createsDatabase: true,
  precheck: (argv) => (argv.length ? `Usage:\n${WORKER_USAGE}` : undefined),
  print: false,
  run: async (deps, _argv, out) => {
    let unwatch = () => {};
    const stop = new Promise<void>((resolve) => {
      process.once('SIGTERM', () => resolve());
      process.once('SIGINT', () => resolve());
      // `npx slipcheck worker` is npx -> sh -> node: a SIGTERM to npx never reaches us, and an orphaned
      // worker keeps claiming jobs. Drain as for SIGTERM when the parent goes.
      unwatch = watchParent(() => {
        out.stderr('parent process gone: stopping as on SIGTERM');
        resolve();
      });
    });
    try {
      await runWorkerUntil(deps, stop, (s) => out.stderr(s));
    } finally {
      unwatch();
    }
  },
};

/** `slipcheck outbox failed`: what the operator must look at. Sees only the database. */
export const parkedCommand: ModuleCommand<{ db: Db }> = {
  usage: `Usage:\n${WORKER_USAGE}`,
  run: async (deps, argv) => {
    const { values } = flags(argv, { kind: 'string', limit: 'string' });
    const limit = optionalInt(values, 'limit', { min: 1, max: 500 }) ?? 50;
    return listParked(deps.db, { kind: values.kind as string | undefined, limit });
  },
};
