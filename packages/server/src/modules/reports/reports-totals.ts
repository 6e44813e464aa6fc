import { sql } from 'kysely';
import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';
import { periodRanges, type PeriodName } from './reports-time.js';

/** Statuses whose money never reached the shop: what checking saved the owner from accepting. */
export const BLOCKED = { duplicate: ['DUPLICATE'], mismatch: ['AMOUNT_MISMATCH', 'RECEIVER_MISMATCH'], fraud: ['FRAUD'] } as const;
const COUNTED = ['SUCCESS', ...BLOCKED.duplicate, ...BLOCKED.mismatch, ...BLOCKED.fraud];

export interface Money {
  count: number;
  amountSatang: number;
}
export interface PeriodTotals {
  from: string;
  to: string;
  verified: Money;
  byPayee: Array<Money & { account: string | null; name: string | null }>;
  byChannel: Array<Money & { source: string }>;
  blocked: { duplicate: Money; mismatch: Money; fraud: Money };
}

const zero = (): Money => ({ count: 0, amountSatang: 0 });
/** SQL SUM of an integer column is an integer on both stores; Number() only parses it (pg hands bigint as text). */
const int = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

/**
 * Money totals of live results, cut by the time the slip was checked (`created_at`, the same field the
 * transactions filters use) at local midnights. Amounts stay integer satang from the column to the
 * JSON: SQL sums integers, JavaScript adds integers well below 2^53, and only the screen turns them
 * into baht text.
 */
export function createReportTotals(deps: { db: Db; clock: Clock; timeZone: string }) {
  const { db, clock, timeZone } = deps;

  async function between(shopId: string, from: Date, to: Date): Promise<PeriodTotals> {
    const rows = await db
      .selectFrom('transactions')
      .select([
        'status',
        'source',
        'receiver_account',
        'receiver_name',
        (eb) => eb.fn.countAll<number>().as('n'),
        // A duplicate found from the slip's reference alone (the checker was not asked again) has no amount
        // of its own; the money it would have cost is the first verified check of the same transfer.
        sql<number>`sum(case when transactions.status = 'DUPLICATE' and transactions.amount_satang is null then (select s.amount_satang from transactions as s where s.shop_id = transactions.shop_id and s.environment = transactions.environment and s.success_ref = transactions.trans_ref) else transactions.amount_satang end)`.as(
          's',
        ),
      ])
      .where('shop_id', '=', shopId)
      .where('environment', '=', 'live')
      .where('status', 'in', COUNTED)
      .where('created_at', '>=', from.toISOString())
      .where('created_at', '<', to.toISOString())
      .groupBy(['status', 'source', 'receiver_account', 'receiver_name'])
      .execute();
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
      const n = int(r.n);
      const s = int(r.s);
      if (r.status === 'SUCCESS') {
        out.verified.count += n;
        out.verified.amountSatang += s;
        const pk = `${r.receiver_account ?? ''}\u0000${r.receiver_name ?? ''}`;
        const p = payees.get(pk) ?? { account: r.receiver_account, name: r.receiver_name, count: 0, amountSatang: 0 };
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
    async summary(shopId: string): Promise<{ timeZone: string; periods: Record<PeriodName, PeriodTotals> }> {
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
