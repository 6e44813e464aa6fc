import { describe, expect, it } from 'vitest';
import { formatMoney } from '../src/lib/format';
import { amountQuery, formatBaht } from '../src/lib/money';

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
});
