/**
 * Monthly quota periods in the shop's business time zone (Asia/Bangkok by default). Counters are
 * keyed by period, so a new month starts at zero by itself: no reset job that could be missed.
 */
export interface Period {
  periodMonth: string; // YYYY-MM
  daysUntilReset: number;
  resetsAt: Date;
}

// Intl formatters are expensive to build (about a millisecond) and this runs on every request.
const formatters = new Map<string, Intl.DateTimeFormat>();
export function cachedFormat(key: string, make: () => Intl.DateTimeFormat): Intl.DateTimeFormat {
  let f = formatters.get(key);
  if (!f) {
    f = make();
    formatters.set(key, f);
  }
  return f;
}

function zonedParts(date: Date, timeZone: string) {
  const fmt = cachedFormat(
    `ymd:${timeZone}`,
    () => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }),
  );
  const parts = Object.fromEntries(fmt.formatToParts(date).map((p) => [p.type, p.value]));
  return { year: Number(parts.year), month: Number(parts.month), day: Number(parts.day) };
}

// The offset only changes at a zone's transitions, which fall on quarter hours: the last answer per
// zone holds for the rest of its quarter hour (every answer's timestamp asks, ~15 µs a formatToParts).
const QUARTER_HOUR_MS = 900_000;
const lastOffset = new Map<string, { quarter: number; offset: number }>();

/** Offset (ms) of `timeZone` at `date`, e.g. +7h for Asia/Bangkok. */
export function offsetMs(date: Date, timeZone: string): number {
  const quarter = Math.floor(date.getTime() / QUARTER_HOUR_MS);
  const hit = lastOffset.get(timeZone);
  if (hit && hit.quarter === quarter) return hit.offset;
  const offset = computeOffsetMs(date, timeZone);
  lastOffset.set(timeZone, { quarter, offset });
  return offset;
}

function computeOffsetMs(date: Date, timeZone: string): number {
  const fmt = cachedFormat(
    `full:${timeZone}`,
    () =>
      new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      }),
  );
  const p = Object.fromEntries(fmt.formatToParts(date).map((x) => [x.type, x.value]));
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return asUtc - Math.floor(date.getTime() / 1000) * 1000;
}

/** ISO 8601 with the offset of the service's time zone, e.g. 2026-11-21T20:25:59.123+07:00. */
export function isoWithOffset(date: Date, timeZone: string): string {
  const offMin = Math.round(offsetMs(date, timeZone) / 60_000);
  const local = new Date(date.getTime() + offMin * 60_000).toISOString().slice(0, 23);
  const sign = offMin >= 0 ? '+' : '-';
  const abs = Math.abs(offMin);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/**
 * A time people read in an English message (the DUPLICATE's "first verified at"), e.g.
 * "2026-11-27 17:03 (UTC+07:00)": the service's zone with its offset, so it matches the shop's clock and
 * still says which instant it is. UTC ISO read as seven hours early in Thailand. Machine-readable
 * fields stay ISO; LINE and e-mail texts use their own localized forms (line-messages formatTime).
 */
export function readableLocalTime(date: Date, timeZone: string): string {
  const iso = isoWithOffset(date, timeZone);
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} (UTC${iso.slice(23)})`;
}

// The month only changes at resetsAt: remember the last month per zone (this runs several times a request).
const lastMonth = new Map<string, { from: number; periodMonth: string; resetsAt: Date }>();

export function periodOf(date: Date, timeZone: string): Period {
  const t = date.getTime();
  const hit = lastMonth.get(timeZone);
  if (hit && t >= hit.from && t < hit.resetsAt.getTime()) {
    return {
      periodMonth: hit.periodMonth,
      resetsAt: hit.resetsAt,
      daysUntilReset: Math.max(0, Math.ceil((hit.resetsAt.getTime() - t) / 86_400_000)),
    };
  }
  const computed = computePeriod(date, timeZone);
  lastMonth.set(timeZone, { from: t, periodMonth: computed.periodMonth, resetsAt: computed.resetsAt });
  return computed;
}

function computePeriod(date: Date, timeZone: string): Period {
  const { year, month } = zonedParts(date, timeZone);
  const nextYear = month === 12 ? year + 1 : year;
  const nextMonth = month === 12 ? 1 : month + 1;
  const localMidnight = Date.UTC(nextYear, nextMonth - 1, 1);
  const resetsAt = new Date(localMidnight - offsetMs(new Date(localMidnight), timeZone));
  const daysUntilReset = Math.max(0, Math.ceil((resetsAt.getTime() - date.getTime()) / 86_400_000));
  return { periodMonth: `${year}-${String(month).padStart(2, '0')}`, daysUntilReset, resetsAt };
}

/** UTC instant at which the calendar month containing `now` starts in `timeZone` (the quota period's start: per-key usage). */
export function periodStart(now: Date, timeZone: string): Date {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
      .formatToParts(now)
      .map((x) => [x.type, x.value]),
  );
  const localAsUtc = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second);
  const offset = localAsUtc - Math.floor(now.getTime() / 1000) * 1000;
  return new Date(Date.UTC(+p.year, +p.month - 1, 1) - offset);
}

/** UTC instant of local midnight on the given local calendar date (month/day may overflow; Date.UTC normalises). */
export function localMidnight(year: number, month: number, day: number, timeZone: string): Date {
  const asUtc = Date.UTC(year, month - 1, day);
  // The offset at that instant (one correction step is exact for whole-hour zones without DST, e.g. Bangkok).
  const guess = asUtc - offsetMs(new Date(asUtc), timeZone);
  return new Date(asUtc - offsetMs(new Date(guess), timeZone));
}

/** [from, to) of a local day given as YYYY-MM-DD. */
export function dayRange(day: string, timeZone: string): { from: Date; to: Date } {
  const [y, m, dd] = day.split('-').map(Number);
  return { from: localMidnight(y, m, dd, timeZone), to: localMidnight(y, m, dd + 1, timeZone) };
}
