// The one Retry-After reader of the service (checker answers, LINE answers, webhook targets).
// RFC 9110 10.2.3: `Retry-After = HTTP-date / delay-seconds`, delay-seconds = 1*DIGIT.

/** Largest wait this returns: setTimeout cannot sleep longer than 2^31-1 ms (~24.8 days) anyway. */
export const RETRY_AFTER_MAX_MS = 2 ** 31 - 1;

// HTTP-dates start with a day name (IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT", the obsolete RFC 850
// "Sunday, 06-Nov-94 ..." and asctime "Sun Nov  6 ..."). Checked before Date.parse because V8's
// parser is lenient: it reads "-5" or "1" as dates, which would turn garbage into "retry now".
const HTTP_DATE_START = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\s/i;

/**
 * The wait a Retry-After value asks for, in whole milliseconds: delay-seconds or an HTTP-date
 * (a date in the past is 0). null when absent or unreadable (negative, fractional, garbage), so
 * each caller applies its own default. At most `capMs` (default RETRY_AFTER_MAX_MS).
 * A header repeated by a proxy arrives as an array: the first value counts.
 */
export function parseRetryAfterMs(
  value: string | readonly string[] | null | undefined,
  nowMs: number = Date.now(),
  capMs: number = RETRY_AFTER_MAX_MS,
): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string') return null;
  const v = raw.trim();
  let ms: number;
  if (/^\d+$/.test(v)) ms = Number(v) * 1000;
  else if (HTTP_DATE_START.test(v)) {
    // asctime carries no zone but means GMT; without it Date.parse would read the server's local time
    const t = Date.parse(/\b(?:GMT|UTC)$/i.test(v) ? v : `${v} GMT`);
    if (!Number.isFinite(t)) return null;
    ms = Math.max(0, t - nowMs);
  } else return null;
  return Math.min(ms, capMs);
}
