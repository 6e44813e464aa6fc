import type { Lang } from '../i18n/i18n';
import { formatBaht, satangFromAmount } from './money';

export const TIME_ZONE = 'Asia/Bangkok';
const locale = (lang: Lang) => (lang === 'th' ? 'th-TH' : 'en-GB');

/** THB with satang, e.g. ฿1,250.50: the amount's satang, formatted with integer arithmetic. */
export function formatMoney(amount: number | null | undefined): string {
  const satang = amount === null || amount === undefined ? null : satangFromAmount(amount);
  return satang === null ? '—' : formatBaht(satang);
}

export function formatDateTime(iso: string | null | undefined, lang: Lang): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(locale(lang), { timeZone: TIME_ZONE, dateStyle: 'medium', timeStyle: 'short' }).format(d);
}

export function formatDate(iso: string | null | undefined, lang: Lang): string {
  if (!iso) return '—';
  const d = new Date(iso.length === 10 ? `${iso}T12:00:00+07:00` : iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(locale(lang), { timeZone: TIME_ZONE, day: 'numeric', month: 'short' }).format(d);
}

export const formatNumber = (n: number, lang: Lang) => new Intl.NumberFormat(locale(lang)).format(n);

/** The calendar day in Bangkok, YYYY-MM-DD. */
export function bangkokDay(date: Date | string): string {
  const d = typeof date === 'string' ? new Date(date) : date;
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' })
      .formatToParts(d)
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}-${p.month}-${p.day}`;
}

/**
 * A day typed into a date field (YYYY-MM-DD), with a Buddhist-era year made the calendar's: Thai people
 * read and write years in the Buddhist era (the lists print "27 พ.ย. 2569"), and a date field takes 2569
 * as it is, so the filter found nothing. A year from 2400 on is read as Buddhist era (543 years ahead);
 * no record has one.
 */
export function gregorianDay(day: string): string {
  const m = /^(\d{4})(-\d{2}-\d{2})$/.exec(day);
  if (!m || Number(m[1]) < 2400) return day;
  return `${Number(m[1]) - 543}${m[2]}`;
}

/** Start of a Bangkok day (YYYY-MM-DD) as ISO with +07:00, for the from/to filters. */
export const bangkokDayStart = (day: string) => `${day}T00:00:00+07:00`;
export const bangkokDayEnd = (day: string) => `${day}T23:59:59.999+07:00`;

export function daysLeft(iso: string | null | undefined, now = Date.now()): number | null {
  if (!iso) return null;
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return null;
  return Math.max(0, Math.ceil((t - now) / 86_400_000));
}
