import { sql } from 'kysely';
import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';

const DAY_MS = 86_400_000;

/** UTC instant at which the calendar month containing `now` starts in `timeZone`. */
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

const localDate = (timeZone: string) => {
  const f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return (d: Date) => f.format(d);
};

/** Read models for the owner's overview and key list; aggregates stay in SQL, so a busy shop costs little. */
export function createOverviewService(deps: { db: Db; clock: Clock; timeZone: string }) {
  const { db, clock, timeZone } = deps;
  return {
    /**
     * Live results by status for the last 30 local days (today last). Grouped in SQL by UTC hour, then
     * folded into local days here: portable across both databases and right for any whole-hour zone.
     */
    async daily(shopId: string, days = 30) {
      const now = clock.now();
      const toLocal = localDate(timeZone);
      const dates: string[] = [];
      for (let i = days - 1; i >= 0; i--) dates.push(toLocal(new Date(now.getTime() - i * DAY_MS)));
      const since = new Date(now.getTime() - (days + 1) * DAY_MS).toISOString();
      const hour = sql<string>`substr(created_at, 1, 13)`;
      const rows = await db
        .selectFrom('transactions')
        .select([hour.as('h'), 'status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('shop_id', '=', shopId)
        .where('environment', '=', 'live')
        .where('created_at', '>=', since)
        .groupBy([hour, 'status'])
        .execute();
      const out = new Map(dates.map((d) => [d, { date: d, total: 0, byStatus: {} as Record<string, number> }]));
      for (const r of rows) {
        const day = out.get(toLocal(new Date(`${r.h}:00:00.000Z`)));
        if (!day) continue;
        const n = Number(r.n);
        day.total += n;
        day.byStatus[r.status] = (day.byStatus[r.status] ?? 0) + n;
      }
      return [...out.values()];
    },

    /** Results per API key in the current quota period (what "calls this month" shows per key). */
    async callsByKey(shopId: string): Promise<Map<string, number>> {
      const since = periodStart(clock.now(), timeZone).toISOString();
      const rows = await db
        .selectFrom('transactions')
        .select(['api_key_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('shop_id', '=', shopId)
        .where('api_key_id', 'is not', null)
        .where('created_at', '>=', since)
        .groupBy('api_key_id')
        .execute();
      return new Map(rows.map((r) => [r.api_key_id as string, Number(r.n)]));
    },

    trialDaysLeft(trialEndsAt: string | null, state: string): number | null {
      if (!trialEndsAt || state !== 'trial') return null;
      return Math.max(0, Math.ceil((Date.parse(trialEndsAt) - clock.now().getTime()) / DAY_MS));
    },
  };
}
export type OverviewService = ReturnType<typeof createOverviewService>;
