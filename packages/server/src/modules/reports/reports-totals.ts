import type { TransactionService } from '../transactions/transaction-service.js';
import type { Clock } from '../../lib/clock.js';
import { periodRanges } from './reports-time.js';

/** Statuses whose money never reached the shop: what checking saved the owner from accepting. */
export const BLOCKED = { duplicate: ['DUPLICATE'], mismatch: ['AMOUNT_MISMATCH', 'RECEIVER_MISMATCH'], fraud: ['FRAUD'] } as const;
const COUNTED = ['SUCCESS', ...BLOCKED.duplicate, ...BLOCKED.mismatch, ...BLOCKED.fraud];

import type { Money, PeriodTotals, TotalsSummary } from './reports-types.js';
export type { Money, PeriodTotals } from './reports-types.js';

const zero = (): Money => ({ count: 0, amountSatang: 0 });

/**
 * Money totals of live results, cut by the time the slip was checked (`created_at`, the same field the
 * transactions filters use) at local midnights. Amounts stay integer satang from the column to the
 * JSON: SQL sums integers, JavaScript adds integers well below 2^53, and only the screen turns them
 * into baht text.
 */
export function createReportTotals(deps: { transactions: Pick<TransactionService, 'liveMoneyGroups'>; clock: Clock; timeZone: string }) {
  const { clock, timeZone } = deps;

  async function between(shopId: string, from: Date, to: Date): Promise<PeriodTotals> {
    const rows = await deps.transactions.liveMoneyGroups(shopId, from.toISOString(), to.toISOString(), COUNTED);
    const out: PeriodTotals = {
      from: from.toISOString(),
      to: to.toISOString(),
      verified: zero(),
      byPayee: [],
      byChannel: [],
      blocked: { duplicate: zero(), mismatch: zero(), fraud: zero() },
    };
    const payees = new Map<string, PeriodTotals['byPayee'][number]>();
    const channels = new Map<string, PeriodTotals['byChannel'][number]>();
    for (const r of rows) {
      const n = r.count;
      const s = r.amountSatang;
      if (r.status === 'SUCCESS') {
        out.verified.count += n;
        out.verified.amountSatang += s;
        const pk = `${r.receiverAccount ?? ''}\u0000${r.receiverName ?? ''}`;
        const p = payees.get(pk) ?? { account: r.receiverAccount, name: r.receiverName, count: 0, amountSatang: 0 };
        p.count += n;
        p.amountSatang += s;
        payees.set(pk, p);
        const ch = channels.get(r.source) ?? { source: r.source, count: 0, amountSatang: 0 };
        ch.count += n;
        ch.amountSatang += s;
        channels.set(r.source, ch);
        continue;
      }
      for (const [k, list] of Object.entries(BLOCKED) as Array<[keyof typeof BLOCKED, readonly string[]]>) {
        if (list.includes(r.status)) {
          out.blocked[k].count += n;
          out.blocked[k].amountSatang += s;
        }
      }
    }
    out.byPayee = [...payees.values()].sort((a, b) => b.amountSatang - a.amountSatang);
    out.byChannel = [...channels.values()].sort((a, b) => b.amountSatang - a.amountSatang);
    return out;
  }

  return {
    between,
    /** Today, this week (Monday first) and this month in the business time zone. */
    async summary(shopId: string): Promise<TotalsSummary> {
      const ranges = periodRanges(clock.now(), timeZone);
      const [today, week, month] = await Promise.all([
        between(shopId, ranges.today.from, ranges.today.to),
        between(shopId, ranges.week.from, ranges.week.to),
        between(shopId, ranges.month.from, ranges.month.to),
      ]);
      return { timeZone, periods: { today, week, month } };
    },
  };
}
export type ReportTotals = ReturnType<typeof createReportTotals>;
