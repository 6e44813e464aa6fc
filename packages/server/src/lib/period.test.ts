import { describe, expect, it } from 'vitest';
import { periodOf, readableLocalTime } from './period.js';

describe('periodOf (Asia/Bangkok months)', () => {
  it.each([
    ['2026-11-30T16:59:59Z', '2026-11', 1, '2026-11-30T17:00:00.000Z'],
    ['2026-11-30T17:00:00Z', '2026-12', 31, '2026-12-31T17:00:00.000Z'],
    ['2026-12-31T16:59:00Z', '2026-12', 1, '2026-12-31T17:00:00.000Z'],
    ['2026-12-31T17:00:00Z', '2027-01', 31, '2027-01-31T17:00:00.000Z'],
    ['2028-02-01T00:00:00Z', '2028-02', 29, '2028-02-29T17:00:00.000Z'],
  ])('%s is in %s, %i days to reset at %s', (at, month, days, resets) => {
    const p = periodOf(new Date(at), 'Asia/Bangkok');
    expect(p.periodMonth).toBe(month);
    expect(p.daysUntilReset).toBe(days);
    expect(p.resetsAt.toISOString()).toBe(resets);
  });

  it('gives the same answer going forward, backward and across zones (no stale memo)', () => {
    const seq = ['2026-05-10T00:00:00Z', '2026-05-31T17:30:00Z', '2026-05-20T00:00:00Z', '2026-06-15T00:00:00Z'];
    expect(seq.map((d) => periodOf(new Date(d), 'Asia/Bangkok').periodMonth)).toEqual(['2026-05', '2026-06', '2026-05', '2026-06']);
    expect(periodOf(new Date('2026-05-31T17:30:00Z'), 'UTC').periodMonth).toBe('2026-05');
  });
});

describe('readableLocalTime (times people read in messages)', () => {
  it.each([
    ['2026-11-27T10:03:59.999Z', 'Asia/Bangkok', '2026-11-27 17:03 (UTC+07:00)'],
    ['2026-11-30T17:00:00Z', 'Asia/Bangkok', '2026-12-01 00:00 (UTC+07:00)'],
    ['2026-11-27T10:03:00Z', 'UTC', '2026-11-27 10:03 (UTC+00:00)'],
    ['2026-11-27T10:03:00Z', 'Asia/Kolkata', '2026-11-27 15:33 (UTC+05:30)'],
    ['2026-11-27T03:03:00Z', 'America/New_York', '2026-11-26 22:03 (UTC-05:00)'],
  ])('%s in %s reads %s', (at, zone, text) => {
    expect(readableLocalTime(new Date(at), zone)).toBe(text);
  });
});
