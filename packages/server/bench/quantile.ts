/**
 * The nearest-rank quantile (q in 0..1) the benches and the chaos soak report: the value at
 * floor(q * n) of the sorted sample, the largest for q = 1; NaN for no sample. One definition, so a
 * p95 in docs/benchmarks.md and one printed by the soak are the same statistic.
 */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

/** The median as `quantile(xs, 0.5)` (the upper middle of an even sample). */
export const median = (xs: readonly number[]): number => quantile(xs, 0.5);
