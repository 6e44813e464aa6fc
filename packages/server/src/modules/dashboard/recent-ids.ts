/**
 * The last `max` ids seen, the oldest forgotten first. The live stream drops an event it already sent
 * (the replay after a reconnect and the live messages held meanwhile overlap; a bus may deliver twice)
 * without remembering every id of a connection that stays open for days.
 */
export function createRecentIds(max: number) {
  if (!Number.isInteger(max) || max < 1) throw new Error('createRecentIds: max must be a positive integer');
  const seen = new Set<string>();
  const ring: string[] = [];
  let oldest = 0;
  return {
    /** True the first time `id` is seen within the window (remembered from now on), false for a repeat. */
    add(id: string): boolean {
      if (seen.has(id)) return false;
      if (ring.length < max) ring.push(id);
      else {
        seen.delete(ring[oldest]!);
        ring[oldest] = id;
        oldest = (oldest + 1) % max;
      }
      seen.add(id);
      return true;
    },
    get size(): number {
      return seen.size;
    },
  };
}
export type RecentIds = ReturnType<typeof createRecentIds>;
