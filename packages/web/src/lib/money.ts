import { formatSatang, parseAmountToSatang, satangFromAmount } from '@slipcheck/sdk';

// Money on screen is integer satang, read and shown with the SDK's helpers (the service uses the same
// ones), so the dashboard never does arithmetic on a floating-point amount.
export { parseAmountToSatang, satangFromAmount };

/** Satang to "฿1,234.50" by integer arithmetic. */
export const formatBaht = (satang: number) => `${satang < 0 ? '-' : ''}฿${formatSatang(Math.abs(satang))}`;

const THAI_DIGITS = '๐๑๒๓๔๕๖๗๘๙';

/**
 * A typed amount as the query value: the number as typed, without what a Thai counter writes around it
 * (thousands separators, spaces, "฿" or "บาท"/"THB", the price-tag ending ".-" of "450.-", Thai digits).
 * "1,250.50" -> "1250.50", "450.-" -> "450". Anything else (three decimals, a sign) stays as typed:
 * amountProblem() says why before it is sent.
 */
export function amountQuery(typed: string): string | undefined {
  const v = typed
    .replace(/[๐-๙]/g, (d) => String(THAI_DIGITS.indexOf(d)))
    .replace(/[,\s\u00a0฿]/g, '')
    .replace(/(บาท|thb|baht)$/i, '')
    .replace(/\.?[-–]$/, '');
  return v === '' ? undefined : v;
}

/**
 * Why a typed expected amount cannot be sent (the service's rule: more than 0, at most 9 digits before
 * the point and 2 after), or null when it can (or is empty: the amount is optional). The screen says
 * it beside the field in the person's language; the service's refusal is an English schema rule.
 */
export function amountProblem(typed: string): 'check.expectedInvalid' | null {
  const v = amountQuery(typed);
  if (v === undefined) return null;
  return /^\d{1,9}(\.\d{1,2})?$/.test(v) && /[1-9]/.test(v) ? null : 'check.expectedInvalid';
}
