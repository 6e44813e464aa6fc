import { cachedFormat, dayRange, localMidnight, offsetMs } from '../../lib/period.js';
export { dayRange, localMidnight };

/**
 * Local (business time zone, Asia/Bangkok by default) calendar arithmetic for reports. Days, weeks
 * (Monday first) and months are cut at local midnight and turned back into UTC instants, so SQL only
 * ever compares the stored UTC ISO strings.
 */
export interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  weekday: number;
}

export function localParts(instant: Date, timeZone: string): LocalParts {
  const local = new Date(instant.getTime() + offsetMs(instant, timeZone));
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    weekday: (local.getUTCDay() + 6) % 7, // 0 = Monday
  };
}

/** YYYY-MM-DD of `instant` in the zone. */
export function localDay(instant: Date, timeZone: string): string {
  return cachedFormat(
    `ymd:${timeZone}`,
    () => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }),
  ).format(instant);
}

import type { PeriodName } from './reports-types.js';
export type { PeriodName } from './reports-types.js';

/** Today, this week (from Monday) and this month, each [from, to) with `to` the next boundary. */
export function periodRanges(now: Date, timeZone: string): Record<PeriodName, { from: Date; to: Date }> {
  const p = localParts(now, timeZone);
  return {
    today: { from: localMidnight(p.year, p.month, p.day, timeZone), to: localMidnight(p.year, p.month, p.day + 1, timeZone) },
    week: {
      from: localMidnight(p.year, p.month, p.day - p.weekday, timeZone),
      to: localMidnight(p.year, p.month, p.day - p.weekday + 7, timeZone),
    },
    month: { from: localMidnight(p.year, p.month, 1, timeZone), to: localMidnight(p.year, p.month + 1, 1, timeZone) },
  };
}

/** "YYYY-MM-DD HH:mm:ss" in the zone (CSV cells: what the owner's clock said). */
export function localDateTime(iso: string, timeZone: string): string {
  const d = new Date(iso);
  const local = new Date(d.getTime() + offsetMs(d, timeZone));
  return local.toISOString().slice(0, 19).replace('T', ' ');
}

/** A Date whose UTC fields are the local wall time: spreadsheets have no time zones and show UTC fields. */
export function wallClockDate(iso: string, timeZone: string): Date {
  const d = new Date(iso);
  return new Date(d.getTime() + offsetMs(d, timeZone));
}

/** Satang (integer) to "1,234.50" without ever going through a float: one definition, in lib/money. */
export { formatSatang } from '../../lib/money.js';
