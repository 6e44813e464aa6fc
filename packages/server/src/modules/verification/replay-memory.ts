import type { TransactionRecord } from '../transactions/transaction-record.js';

/**
 * How long one node answers a replay (the same image, amount and clientRef again) from memory instead
 * of reading its claim and record. The same promise as key authentication's (AUTH_CACHE_MAX_MS): a
 * change made on another node (a record anonymised, a shop erased) is seen here within this time, and
 * on this node at once (`forgetShop`). A record does not change inside the replay window in practice
 * (anonymisation starts a month after a record is written; an erased shop's keys stop working first),
 * so this bound is a second line, not the only one. It pays for repeated identical requests: an
 * integration retrying in a loop, a group forwarding one picture; a single retry minutes later reads
 * the database as before.
 */
export const REPLAY_MEMORY_MAX_MS = 1000;
const ENTRIES = 2_000;

interface Remembered {
  record: TransactionRecord;
  /** The end of the replay window (epoch ms on the service clock): never answered from memory after it. */
  until: number;
  /** performance.now() when the reads that loaded it started. */
  loadedAt: number;
}

export function createReplayMemory(opts: { ms?: number; now: () => number }) {
  const ms = Math.max(0, Math.min(REPLAY_MEMORY_MAX_MS, opts.ms ?? REPLAY_MEMORY_MAX_MS));
  const entries = new Map<string, Remembered>();
  // Bumped by every invalidation: a load that was reading while a shop changed answers its own request
  // but is not kept (it may have read the record from before the change).
  let generation = 0;
  const keyOf = (shopId: string, scope: string, requestKey: string) => `${shopId}\u0000${scope}\u0000${requestKey}`;

  return {
    /** The record answered for this request key less than `ms` ago, or undefined. */
    get(shopId: string, scope: string, requestKey: string): TransactionRecord | undefined {
      if (ms === 0) return undefined;
      const k = keyOf(shopId, scope, requestKey);
      const hit = entries.get(k);
      if (!hit) return undefined;
      if (performance.now() - hit.loadedAt >= ms || opts.now() >= hit.until) {
        entries.delete(k);
        return undefined;
      }
      return hit.record;
    },
    /** Where a load starts: pass it to `keep`, which drops the record if the shop changed meanwhile. */
    begin: () => ({ generation, at: performance.now() }),
    keep(
      load: { generation: number; at: number },
      key: { shopId: string; scope: string; requestKey: string; until: number },
      record: TransactionRecord,
    ) {
      if (ms === 0 || load.generation !== generation) return;
      // Oldest first (insertion order): drop the expired ones, then the oldest if still full.
      const now = performance.now();
      for (const [k, e] of entries) {
        if (now - e.loadedAt < ms && entries.size < ENTRIES) break;
        entries.delete(k);
      }
      const k = keyOf(key.shopId, key.scope, key.requestKey);
      entries.delete(k); // re-inserted at the end, where the newest are
      entries.set(k, { record: Object.freeze(record), until: key.until, loadedAt: load.at });
    },
    forgetShop(shopId: string) {
      generation++;
      const prefix = `${shopId}\u0000`;
      for (const k of entries.keys()) if (k.startsWith(prefix)) entries.delete(k);
    },
  };
}
