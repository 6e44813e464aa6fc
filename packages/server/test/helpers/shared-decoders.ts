import { createSlipDecoderPool, type SlipDecoderPool, type SlipDecoderPoolOptions } from '../../src/modules/slip-qr/slip-qr-pool.js';

/**
 * One decoder pool per test process and set of pool options, shared by the harnesses and served apps
 * that do not tune the pool themselves (issue 25). Each container used to start two decoder processes
 * of its own on its first slip: ~1 s of wall time and ~3 s of CPU, dozens of times per run. The test
 * files of a process run one after another (vitest.config.ts: isolate off), and a pool keys its fair
 * queue by shop, so sharing changes no answer. Tests about the pool itself (kill limit, a decoder that
 * cannot start, pids) keep their own. The pool is never closed: its idle decoders do not hold the test
 * process open, and they exit with it (slip-qr-worker.ts: on 'disconnect').
 */
const pools = new Map<string, SlipDecoderPool>();

/**
 * Room for the decode and the reader. The tests on a shared pool are about what the service answers
 * for what is read, not about the decoder's time limits (those tests keep pools of their own). When
 * the production budget was 1.7 s of wall time, a full run on a busy machine once answered an edited
 * LINE slip as genuine, its printed amount unread; the budgets now count running time, but a decoder
 * kept off the CPU 6 s past its limit is still stopped, and a full run on two cores can reach that.
 */
const ROOM: SlipDecoderPoolOptions = { imageBudgetMs: 15_000, jobTimeoutMs: 20_000 };

export function sharedDecoderPool(options: SlipDecoderPoolOptions): SlipDecoderPool {
  const key = JSON.stringify(options);
  let pool = pools.get(key);
  if (!pool || pool.health().status === 'down') {
    pool = createSlipDecoderPool({ ...options, ...ROOM });
    pools.set(key, pool);
  }
  return pool;
}
