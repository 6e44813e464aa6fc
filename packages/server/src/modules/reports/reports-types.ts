// The money view's answer shapes, with no imports: the dashboard (packages/web) imports these types
// too, so the screen and the service cannot drift apart.

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

export type PeriodName = 'today' | 'week' | 'month';

/** GET /api/dashboard/reports/totals: today, this week (Monday first) and this month in the business time zone. */
export interface TotalsSummary {
  timeZone: string;
  periods: Record<PeriodName, PeriodTotals>;
}
