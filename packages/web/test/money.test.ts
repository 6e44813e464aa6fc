import { describe, expect, it } from 'vitest';
import { formatMoney } from '../src/lib/format';
import { amountProblem, amountQuery, formatBaht } from '../src/lib/money';

describe('money on screen (integer satang)', () => {
  it('formats record amounts through their satang', () => {
    expect(formatMoney(8.2)).toBe('฿8.20');
    expect(formatMoney(1250.5)).toBe('฿1,250.50');
    expect(formatMoney(0.07)).toBe('฿0.07');
    expect(formatMoney(99999999.99)).toBe('฿99,999,999.99');
    expect(formatMoney(null)).toBe('—');
    expect(formatBaht(-150_000)).toBe('-฿1,500.00');
  });

  it('sends a typed amount as typed, without separators (never as a float)', () => {
    expect(amountQuery('1,250.50')).toBe('1250.50');
    expect(amountQuery(' 8.20 ')).toBe('8.20');
    expect(amountQuery('')).toBeUndefined();
    expect(amountQuery('8.205')).toBe('8.205'); // the service refuses it, and the screen shows why
  });

  it('reads an amount as Thai counters write it: ฿, บาท, the price-tag ".-", Thai digits', () => {
    expect(amountQuery('450.-')).toBe('450');
    expect(amountQuery('450-')).toBe('450');
    expect(amountQuery('฿1,250.50')).toBe('1250.50');
    expect(amountQuery('1250 บาท')).toBe('1250');
    expect(amountQuery('99 THB')).toBe('99');
    expect(amountQuery('๔๕๐')).toBe('450');
    for (const ok of ['', '450', '450.-', '฿1,250.50', '0.5', '123456789.99']) expect(amountProblem(ok), ok).toBeNull();
    for (const bad of ['45O', '450.505', '-450', '0', '0.00', '1e3', '1234567890', 'ห้าร้อย'])
      expect(amountProblem(bad), bad).toBe('check.expectedInvalid');
  });
});
