import { describe, expect, it } from 'vitest';
import { formatSatang, parseAmountToSatang, satangFromAmount, satangToAmount } from '../src/money.js';

/** 820 -> "8.20" with integer arithmetic only. */
const text = (satang: number) => `${(satang - (satang % 100)) / 100}.${String(satang % 100).padStart(2, '0')}`;

describe('money helpers (integer satang, no float arithmetic)', () => {
  it('every price 0.01..1000.00: text -> satang -> JSON number -> satang -> text round-trips exactly', () => {
    for (let s = 1; s <= 100_000; s++) {
      const t = text(s);
      const n = satangToAmount(s);
      if (parseAmountToSatang(t) !== s || n !== Number(t) || satangFromAmount(n) !== s || formatSatang(s, false) !== t)
        expect.fail(`${s}: ${t} ${n} ${satangFromAmount(n)} ${formatSatang(s, false)}`);
    }
  });

  it('where x * 100 goes wrong, the printed decimal does not', () => {
    expect(8.2 * 100).not.toBe(820); // why Math.round(x * 100) was ever needed
    expect(satangFromAmount(8.2)).toBe(820);
    expect(satangFromAmount(1.15)).toBe(115);
    expect(satangFromAmount(99999999.99)).toBe(9_999_999_999);
    for (const bad of [8.205, -1, 1e21, 0.1 + 0.2, Number.NaN, Number.POSITIVE_INFINITY])
      expect(satangFromAmount(bad), String(bad)).toBeNull();
  });

  it('formats with grouping and signs from integers', () => {
    expect(formatSatang(123_456_789)).toBe('1,234,567.89');
    expect(formatSatang(7)).toBe('0.07');
    expect(formatSatang(-150_000)).toBe('-1,500.00');
    expect(formatSatang(0, false)).toBe('0.00');
  });
});
