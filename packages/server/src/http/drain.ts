import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Container } from '../container.js';

export interface DrainOptions {
  app: FastifyInstance;
  container: Container;
  log: FastifyBaseLogger;
  /** How long /health answers 503 while the node still serves, so the load balancer takes it out. */
  graceMs: number;
  /** The whole shutdown, grace included, ends within this; what still runs then is cut off (exit 1). */
  timeoutMs: number;
  onDraining: () => void;
  afterClose?: () => Promise<void>;
  exit?: (code: number) => void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Graceful shutdown (SIGTERM), in the order a rolling deploy needs:
 *  1. readiness fails at once (/health 503), requests are still served during the grace period;
 *  2. the listener closes (new connections are refused; a new request on a kept-alive connection
 *     gets 503 and Connection: close), in-flight requests (verifies) run to their answer;
 *  3. the outbox worker stops claiming, lets running jobs finish and releases what it had to
 *     abort, so another worker takes them at once instead of after the lease;
 *  4. pools and the database close, the process exits 0; past SHUTDOWN_TIMEOUT_MS it exits 1.
 * A verify charges and records in one transaction, so cutting one off never leaves a charge
 * without its record.
 */
export function createDrain(o: DrainOptions) {
  const exit = o.exit ?? ((code: number) => process.exit(code));
  let started = false;
  return {
    async run(signal: string, override: { graceMs?: number } = {}) {
      if (started) return;
      started = true;
      const t0 = Date.now();
      const graceMs = override.graceMs ?? o.graceMs;
      const hard = setTimeout(() => {
        o.log.error({ signal, timeoutMs: o.timeoutMs }, 'shutdown timed out; exiting with work still running');
        exit(1);
      }, o.timeoutMs);
      hard.unref();
      o.onDraining();
      o.log.info({ signal, graceMs }, 'draining: readiness fails now, new connections are refused after the grace period');
      if (graceMs > 0) await sleep(graceMs);
      // Whatever the budget leaves after the grace period, keeping a moment for closing the database.
      const left = () => Math.max(0, o.timeoutMs - (Date.now() - t0) - 500);
      try {
        const worker = o.container.worker.stop({ timeoutMs: left() });
        await o.app.close();
        await worker;
        await o.container.close();
        await o.afterClose?.();
      } catch (e) {
        o.log.error({ message: (e as Error).message }, 'shutdown step failed');
        clearTimeout(hard);
        exit(1);
        return;
      }
      clearTimeout(hard);
      o.log.info({ signal, ms: Date.now() - t0 }, 'shut down cleanly');
      exit(0);
    },
  };
}
