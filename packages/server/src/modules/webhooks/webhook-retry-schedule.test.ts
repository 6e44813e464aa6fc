// The retry schedule promise: 5 retries spread over at least 48 hours, whatever the jitter draws.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import {
  DEFAULT_RETRY_SCHEDULE_SECONDS,
  MIN_RETRY_WINDOW_SECONDS,
  RETRY_JITTER,
  retryDelayMs,
  retryWindowSeconds,
} from './webhook-retry-schedule.js';

const HOUR = 3_600_000;
/** Draws in [0, 1), like Math.random, including both ends' neighbourhoods. */
const draw = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
const schedule = loadConfig({}).WEBHOOK_RETRY_SCHEDULE;

describe('webhook retry schedule', () => {
  it('the configured default is the exponential schedule: 5 retries, 5 min x 5^n, at least 48 h without jitter', () => {
    expect(schedule).toEqual([...DEFAULT_RETRY_SCHEDULE_SECONDS]);
    expect(schedule).toEqual([300, 1500, 7500, 37500, 187500]);
    expect(schedule).toHaveLength(5); // the spec's number of retries
    for (let i = 1; i < schedule.length; i++) expect(schedule[i]! / schedule[i - 1]!).toBe(5);
    expect(retryWindowSeconds(schedule)).toBeGreaterThanOrEqual(MIN_RETRY_WINDOW_SECONDS);
  });

  it('for any jitter: every delay is its base stretched by 0-20 %, retries only get further apart, the last retry is 48 h+ after the first try', () => {
    fc.assert(
      fc.property(fc.array(draw, { minLength: 5, maxLength: 5 }), (draws) => {
        const delays = schedule.map((_, round) => retryDelayMs(schedule, round, null, () => draws[round]!));
        delays.forEach((d, round) => {
          const base = schedule[round]! * 1000;
          expect(d).toBeGreaterThanOrEqual(base);
          expect(d).toBeLessThanOrEqual(Math.round(base * (1 + RETRY_JITTER)));
          if (round > 0) expect(d).toBeGreaterThan(delays[round - 1]!);
        });
        const total = delays.reduce((a, b) => a + b, 0);
        expect(total).toBeGreaterThanOrEqual(48 * HOUR);
        expect(total).toBeLessThanOrEqual(Math.round(retryWindowSeconds(schedule) * 1000 * (1 + RETRY_JITTER)) + 5);
      }),
      { numRuns: 2000 },
    );
    // The extremes of the draw, explicitly: no jitter gives exactly the base window (65 h 05 min).
    expect(schedule.reduce((t, _, round) => t + retryDelayMs(schedule, round, null, () => 0), 0)).toBe(65 * HOUR + 5 * 60_000);
  });

  it("a receiver's Retry-After is a minimum, never a way to shorten the schedule", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 24 * HOUR }), draw, (round, retryAfter, r) => {
        const d = retryDelayMs(schedule, round, retryAfter, () => r);
        expect(d).toBeGreaterThanOrEqual(retryAfter);
        expect(d).toBeGreaterThanOrEqual(schedule[round]! * 1000);
      }),
    );
  });

  it('production refuses a schedule that is shorter than 48 h or is not 5 retries', () => {
    const prod = {
      NODE_ENV: 'production',
      SECRET_KEY: 'x'.repeat(40),
      CHECKER: 'easyslip',
      CHECKER_KEY: '123e4567-e89b-42d3-a456-426614174000',
    };
    expect(() => loadConfig({ ...prod, WEBHOOK_RETRY_SCHEDULE: '60,300,1800,7200,28800' })).toThrow('WEBHOOK_RETRY_SCHEDULE');
    expect(() => loadConfig({ ...prod, WEBHOOK_RETRY_SCHEDULE: '86400,86400,86400' })).toThrow('WEBHOOK_RETRY_SCHEDULE');
    expect(loadConfig(prod).WEBHOOK_RETRY_SCHEDULE).toEqual(schedule);
  });
});
