import { describe, expect, it } from 'vitest';
import { periodOf } from './period.js';

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
