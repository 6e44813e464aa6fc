import v8 from 'node:v8';

/**
 * Lets the old generation grow by `percent` of the live heap before V8 starts the next full
 * collection (HEAP_GROWING_PERCENT; 0 keeps V8's heuristic).
 *
 * Why: on a busy node V8 judged its concurrent marking cheap (the helper threads do it) and set the
 * next limit only ~10-25 % above the ~45 MB live heap. Once the young generation had grown to its
 * 16 MB, that headroom was smaller than one young-generation's worth, and V8 starts marking as soon
 * as that is so: a full mark-compact every ~30 verifies, back to back, marking the whole heap each
 * time. On two cores those helper threads take the CPU the decoders need: the service spent ~40 % of
 * its CPU on them (docs/benchmarks.md, "Uncached verify: the garbage collector"). With the headroom at
 * the live heap's size the same bench runs had 0 or 1 full collection per 320 verifies; the cost is a
 * heap limit of ~2x the live heap (~90 MB) instead of ~1.2x.
 *
 * Set at start-up, before the load: V8 reads the flag each time it sets a new limit.
 */
export function applyHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${Math.floor(percent)}`);
}
