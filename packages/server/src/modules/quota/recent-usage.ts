/**
 * This node's copy of shops' live counters, for the quota a replay from memory reports
 * (`QuotaService.recentSnapshot`; docs/architecture.md "Replay memory"). A replay answered from the
 * node's memory otherwise spends a fifth of its time on this one read (issue 24). The promise is the
 * replay memory's own: a copy is at most `ms` old, so a unit taken or given back on another node shows
 * within that time; one taken or given back through this node's quota service shows at once.
 *
 * A write marks its shop (`wrote`), and for `ms` after that no load of the shop is kept: a load that
 * was reading while this node wrote (or while the write's transaction was still open, on PostgreSQL
 * where another connection reads the committed value) could hold the value from before the write.
 * A shop this node writes to more than once a second is read every time, which is what it was before.
 */
const ENTRIES = 10_000;

interface Entry {
  period?: string;
  used?: number;
  /** When the read that loaded `used` started (performance.now(), or the `now` a test passes). */
  loadedAt?: number;
  /** When this node last wrote to the shop's counter. */
  wroteAt?: number;
}

export function createRecentUsage(opts: { ms: number; now?: () => number }) {
  const now = opts.now ?? (() => performance.now());
  const ms = Math.max(0, Math.min(1000, opts.ms)); // the replay memory's bound (REPLAY_MEMORY_MAX_MS)
  const entries = new Map<string, Entry>();
  // When the map overflows it is emptied, and every load that began before `ms` after that is refused,
  // so a write's mark is never lost to the size bound.
  let clearedAt = -Infinity;

  const put = (shopId: string, e: Entry) => {
    entries.delete(shopId); // re-inserted at the end, where the newest are
    if (entries.size >= ENTRIES) {
      entries.clear();
      clearedAt = now();
    }
    entries.set(shopId, e);
  };

  return {
    /** The live counter of the shop's `period` as read less than `ms` ago on this node, or undefined. */
    get(shopId: string, period: string): number | undefined {
      const e = entries.get(shopId);
      if (e?.used === undefined || e.period !== period || now() - e.loadedAt! >= ms) return undefined;
      return e.used;
    },
    /** Where a load starts: pass it to `keep`. */
    begin: now,
    /** Keeps a value read since `loadedAt`, unless this node wrote to the shop within `ms` before or since. */
    keep(shopId: string, period: string, used: number, loadedAt: number) {
      if (ms === 0 || loadedAt < clearedAt + ms) return;
      const wroteAt = entries.get(shopId)?.wroteAt;
      if (wroteAt !== undefined && loadedAt < wroteAt + ms) return;
      put(shopId, { period, used, loadedAt, wroteAt });
    },
    /** This node changed the shop's counter (any pool: the mark is cheap and the copy is per shop). */
    wrote(shopId: string) {
      put(shopId, { wroteAt: now() });
    },
  };
}
