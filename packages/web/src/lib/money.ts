import { formatSatang, parseAmountToSatang, satangFromAmount } from '@slipcheck/sdk';

// Money on screen is integer satang, read and shown with the SDK's helpers (the service uses the same
// ones), so the dashboard never does arithmetic on a floating-point amount.
export { parseAmountToSatang, satangFromAmount };

/** Satang to "฿1,234.50" by integer arithmetic. */
export const formatBaht = (satang: number) => `${satang < 0 ? '-' : ''}฿${formatSatang(Math.abs(satang))}`;

/**
 * A typed amount as the query value, exactly as typed apart from thousands separators and spaces
 * ("1,250.50" -> "1250.50"). Anything else (three decimals, a sign) goes as typed: the service refuses
 * it with VALIDATION_ERROR and the screen says so, instead of checking without the amount.
 */
export function amountQuery(typed: string): string | undefined {
  const v = typed.replace(/[,\s]/g, '');
  return v === '' ? undefined : v;
}
