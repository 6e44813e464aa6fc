import type { Clock } from '../../lib/clock.js';
import type { TransactionService } from '../transactions/transaction-service.js';

const DAY_MS = 86_400_000;

const localDate = (timeZone: string) => {
  const f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return (d: Date) => f.format(d);
};

/** Read models for the owner's overview; aggregates stay in SQL (in the transactions module), so a busy shop costs little. */
export function createOverviewService(deps: {
  transactions: Pick<TransactionService, 'liveCountsByHour'>;
  clock: Clock;
  timeZone: string;
}) {
  const { transactions, clock, timeZone } = deps;
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
      const counts = await transactions.liveCountsByHour(shopId, since);
      const out = new Map(dates.map((d) => [d, { date: d, total: 0, byStatus: {} as Record<string, number> }]));
      for (const { hour, status, count } of counts) {
        const day = out.get(toLocal(new Date(`${hour}:00:00.000Z`)));
        if (!day) continue;
        day.total += count;
        day.byStatus[status] = (day.byStatus[status] ?? 0) + count;
      }
      return [...out.values()];
    },

    trialDaysLeft(trialEndsAt: string | null, state: string): number | null {
      if (!trialEndsAt || state !== 'trial') return null;
      return Math.max(0, Math.ceil((Date.parse(trialEndsAt) - clock.now().getTime()) / DAY_MS));
    },
  };
}
export type OverviewService = ReturnType<typeof createOverviewService>;
