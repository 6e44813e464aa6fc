import { describe, expect, it } from 'vitest';
import { parseRetryAfterMs, RETRY_AFTER_MAX_MS } from './retry-after.js';
import { retryAfterSeconds } from '../modules/checker/checker-http.js';

const NOW = Date.parse('2026-11-23T10:00:00Z');

describe('parseRetryAfterMs (the one Retry-After reader)', () => {
  it.each<[string, string, number]>([
    ['zero', '0', 0],
    ['delay-seconds', '120', 120_000],
    ['surrounding spaces', '  7 ', 7_000],
    ['leading zeros', '007', 7_000],
  ])('delay-seconds: %s', (_l, v, ms) => expect(parseRetryAfterMs(v, NOW)).toBe(ms));

  it.each<[string, string, number]>([
    ['IMF-fixdate in 90 s', 'Mon, 23 Nov 2026 10:01:30 GMT', 90_000],
    ['obsolete RFC 850 date', 'Monday, 23-Nov-26 10:00:05 GMT', 5_000],
    ['asctime date', 'Mon Nov 23 10:00:02 2026', 2_000],
    ['a date in the past is 0', 'Sun, 22 Nov 2026 10:00:00 GMT', 0],
  ])('HTTP-date: %s', (_l, v, ms) => expect(parseRetryAfterMs(v, NOW)).toBe(ms));

  it.each<[string, string | string[] | null | undefined]>([
    ['absent', undefined],
    ['null', null],
    ['empty', ''],
    ['blank', '   '],
    ['negative', '-5'],
    ['fractional', '1.5'],
    ['exponent', '1e3'],
    ['hex', '0x10'],
    ['words', 'soon'],
    ['a bare number V8 would read as a year', '2026 10:00'],
    ['a day name with no date', 'Mon, never'],
    ['ISO 8601 is not an HTTP-date', '2026-11-23T10:01:00Z'],
    ['empty array', []],
  ])('garbage is null (the caller decides the default): %s', (_l, v) => expect(parseRetryAfterMs(v, NOW)).toBeNull());

  it('huge values are capped: by default at the longest setTimeout, or at the caller cap', () => {
    expect(parseRetryAfterMs('99999999999999999999999', NOW)).toBe(RETRY_AFTER_MAX_MS);
    expect(parseRetryAfterMs('Fri, 31 Dec 9999 23:59:59 GMT', NOW)).toBe(RETRY_AFTER_MAX_MS);
    expect(parseRetryAfterMs('86401', NOW, 86_400_000)).toBe(86_400_000);
    expect(parseRetryAfterMs('60', NOW, 86_400_000)).toBe(60_000);
  });

  it('a header repeated by a proxy: the first value counts', () => {
    expect(parseRetryAfterMs(['3', '100'], NOW)).toBe(3_000);
  });

  it('the checker reads it in whole seconds, capped at an hour, with its default for garbage', () => {
    const h = (v?: string) => new Headers(v === undefined ? {} : { 'retry-after': v });
    expect(retryAfterSeconds(h('120'), 60)).toBe(120);
    expect(retryAfterSeconds(h('99999'), 60)).toBe(3600);
    expect(retryAfterSeconds(h(), 60)).toBe(60);
    expect(retryAfterSeconds(h('-1'), 60)).toBe(60);
    expect(retryAfterSeconds(h('later'), 60)).toBe(60);
    const inTwoMinutes = new Date(Date.now() + 120_500).toUTCString();
    expect(retryAfterSeconds(h(inTwoMinutes), 60)).toBeGreaterThanOrEqual(120);
    expect(retryAfterSeconds(h(inTwoMinutes), 60)).toBeLessThanOrEqual(121);
  });
});
