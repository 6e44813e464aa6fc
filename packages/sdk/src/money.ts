/**
 * Money on the wire: THB amounts in requests are decimal strings (digits, at most two decimals, no
 * sign, exponent or spaces), read once into integer satang and compared as integers after that. No
 * floating-point arithmetic on money: `8.2 / 0.01` is not an integer in floating point, so a check
 * like "multiple of 0.01" on a number refuses about one price in nine.
 *
 * Shared by the service (its request edge), the dashboard and this SDK, so all three read a price alike.
 */

/** The pattern of a money value in a request: "8.20", "8.2", "1234" (up to 999,999,999.99). */
export const AMOUNT_PATTERN = '^[0-9]{1,9}(\\.[0-9]{1,2})?$';
const AMOUNT = new RegExp(AMOUNT_PATTERN);

/** "8.20" -> 820 satang; null for anything that is not a money value (three decimals, "1e3", "-1", " 5"). */
export function parseAmountToSatang(text: string): number | null {
  if (typeof text !== 'string' || !AMOUNT.test(text)) return null;
  const [baht, fraction = ''] = text.split('.');
  return parseInt(baht!, 10) * 100 + parseInt(fraction.padEnd(2, '0'), 10);
}

// A JSON amount as JavaScript prints it: the shortest text that reads back as the same number.
const PRINTED = /^([0-9]{1,13})(?:\.([0-9]{1,2})0*)?$/;

/**
 * A JSON number amount (an API answer's `amount`, a checker's answer) to satang, through its printed
 * decimal text rather than `x * 100`: 8.2 -> "8.2" -> 820. Null when it is not a whole number of
 * satang (more than two decimals, negative, an exponent).
 */
export function satangFromAmount(amount: number): number | null {
  if (typeof amount !== 'number' || !Number.isFinite(amount)) return null;
  const m = PRINTED.exec(String(amount));
  if (!m) return null;
  return parseInt(m[1]!, 10) * 100 + parseInt((m[2] ?? '').padEnd(2, '0'), 10);
}

/**
 * Satang to the JSON number the API answers (`amount` is a number in the contract): the number
 * that the decimal text "8.20" reads as, built from that text.
 */
export function satangToAmount(satang: number): number {
  return Number(formatSatang(satang, false));
}

/** Satang to "1,234.56" (or "1234.56" without grouping) with integer arithmetic only. */
export function formatSatang(satang: number, grouping = true): string {
  const negative = satang < 0;
  const abs = Math.abs(Math.trunc(satang));
  const fraction = abs % 100;
  const baht = String((abs - fraction) / 100);
  return `${negative ? '-' : ''}${grouping ? baht.replace(/\B(?=(\d{3})+(?!\d))/g, ',') : baht}.${String(fraction).padStart(2, '0')}`;
}

/**
 * What a client sends as a money query value: a string is sent as written (it must already be a
 * money value), a number as the decimal JavaScript prints for it, never rounded. Throws a
 * RangeError for anything the service would refuse (8.205, 1e21, -1, 0.1 + 0.2).
 */
export function amountQueryValue(amount: string | number): string {
  const text = typeof amount === 'number' && Number.isFinite(amount) ? String(amount) : amount;
  if (typeof text !== 'string' || !AMOUNT.test(text)) {
    throw new RangeError(
      `amount must be THB with at most two decimals, digits only (for example "8.20"); got ${typeof amount === 'string' ? JSON.stringify(amount) : String(amount)}`,
    );
  }
  return text;
}
