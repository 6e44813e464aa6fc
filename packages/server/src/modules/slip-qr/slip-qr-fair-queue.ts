/**
 * The decoder pool's waiting room, fair between shops (keys): each key has its own FIFO, a free worker
 * takes the next job of the key with the fewest running jobs (among equals, the key whose last job
 * started longest ago: a direct start counts, not only one from this queue), and when the
 * room is full a key below its share of it takes the newest place of the key holding the most.
 * One shop flooding the decoder therefore delays another shop by at most the jobs already running,
 * never by the length of its own queue.
 */
export class FairQueue<J> {
  // Map order is the round-robin order: a served key moves to the end.
  private readonly byKey = new Map<string, J[]>();
  private total = 0;

  get size(): number {
    return this.total;
  }

  sizeOf(key: string): number {
    return this.byKey.get(key)?.length ?? 0;
  }

  /** Keys with at least one waiting job. */
  get keys(): number {
    return this.byKey.size;
  }

  push(key: string, job: J): void {
    const q = this.byKey.get(key);
    if (q) q.push(job);
    else this.byKey.set(key, [job]);
    this.total++;
  }

  /** Puts a job back first in its key's line (its decoder died before reading it). */
  pushFront(key: string, job: J): void {
    const q = this.byKey.get(key);
    if (q) q.unshift(job);
    else this.byKey.set(key, [job]);
    this.total++;
  }

  /**
   * Next job for a free decoder: fewest running first; among those, the key that used the least
   * decode time lately (`usage`, ms: its fairness charge, so a shop whose images ran to the kill
   * limit waits behind one whose slips took milliseconds), then the key that started a job longest
   * ago (`lastStart`, 0 = never). Keys at `maxRunning` wait. Null when none may run.
   */
  next(
    running: (key: string) => number,
    maxRunning: number,
    lastStart: (key: string) => number,
    usage: (key: string) => number = () => 0,
  ): { key: string; job: J } | null {
    let best: string | null = null;
    let bestRunning = Infinity;
    let bestUsage = Infinity;
    let bestStart = Infinity;
    for (const key of this.byKey.keys()) {
      const r = running(key);
      if (r >= maxRunning) continue;
      // Usage within 50 ms counts as equal: ordinary slips cost a few ms each, the round robin decides.
      const u = Math.floor(usage(key) / 50);
      const t = lastStart(key);
      if (r < bestRunning || (r === bestRunning && (u < bestUsage || (u === bestUsage && t < bestStart)))) {
        best = key;
        bestRunning = r;
        bestUsage = u;
        bestStart = t;
      }
    }
    if (best === null) return null;
    return { key: best, job: this.take(best, 'oldest') };
  }

  /**
   * Makes room for `key` in a full room: when `key` holds less than its share (room / keys waiting,
   * itself included), the newest job of the key holding the most is removed and returned (the caller
   * refuses it). Null when `key` already has its share.
   */
  evictFor(key: string, room: number): J | null {
    const keys = this.byKey.size + (this.byKey.has(key) ? 0 : 1);
    const share = Math.max(1, Math.floor(room / keys));
    if (this.sizeOf(key) >= share) return null;
    let largest: string | null = null;
    for (const [k, q] of this.byKey) if (k !== key && (largest === null || q.length > this.sizeOf(largest))) largest = k;
    if (largest === null || this.sizeOf(largest) <= share) return null;
    return this.take(largest, 'newest');
  }

  drain(): J[] {
    const all = [...this.byKey.values()].flat();
    this.byKey.clear();
    this.total = 0;
    return all;
  }

  private take(key: string, which: 'oldest' | 'newest'): J {
    const q = this.byKey.get(key)!;
    const job = which === 'oldest' ? q.shift()! : q.pop()!;
    this.total--;
    // Served or evicted, the key goes to the back of the round.
    this.byKey.delete(key);
    if (q.length > 0) this.byKey.set(key, q);
    return job;
  }
}
