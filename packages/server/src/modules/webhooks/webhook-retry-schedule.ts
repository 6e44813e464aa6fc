/**
 * When a failed webhook delivery is tried again. The spec fixes the number of retries (5); the
 * spacing is ours: exponential from 5 minutes by a factor of 5 (5 min, 25 min, 2 h 05, 10 h 25,
 * 52 h 05), so the last retry comes at least 65 hours after the first try. A receiver that is down
 * from Friday evening to Monday morning still gets its events; a short blip is covered by the
 * early retries.
 *
 * Jitter only stretches a delay (by 0 to 20 %), never shortens it: many deliveries that failed
 * together (a receiver's outage) spread out when it comes back, and the window can only grow, so
 * it is never under the sum of the base delays.
 */

/** Base delay before retry 1..5, in seconds: 300 · 5^n. `WEBHOOK_RETRY_SCHEDULE` overrides it. */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = Array.from({ length: 5 }, (_, n) => 300 * 5 ** n);

/** Largest stretch jitter adds to one delay (0.2 = up to 20 % later). */
export const RETRY_JITTER = 0.2;

/** The promise made to receivers: the retries are spread over at least this long. */
export const MIN_RETRY_WINDOW_SECONDS = 48 * 3600;

/**
 * Milliseconds from the end of attempt `round` (0 = the first try) to the next one. A receiver's
 * Retry-After (already capped by the sender) is honoured as a minimum. `random` in [0, 1).
 */
export function retryDelayMs(
  schedule: readonly number[],
  round: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number {
  const base = (schedule[round] ?? 0) * 1000;
  return Math.max(Math.round(base * (1 + RETRY_JITTER * random())), retryAfterMs ?? 0);
}

/** Seconds from the first try to the last retry without jitter: the least the schedule can take. */
export const retryWindowSeconds = (schedule: readonly number[]): number => schedule.reduce((a, b) => a + b, 0);
