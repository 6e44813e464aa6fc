// The money view's answer shapes (the route's schema in reports-schemas.ts says the same; the dashboard,
// packages/web, reads them from the generated types). Each figure is defined in docs/dashboard-api.md.

export interface Money {
  count: number;
  amountSatang: number;
}

/** Amount mismatches one way: `differenceSatang` sums |amount - expected| (what is missing, or paid on top). */
export interface MismatchMoney extends Money {
  differenceSatang: number;
}

/** One of the shop's payee accounts, as the shop entered it; `payeeId` null = received before the account was recorded on results. */
export interface PayeeMoney extends Money {
  payeeId: string | null;
  bankCode: string | null;
  kind: string | null;
  holder: string | null;
  accountLast4: string | null;
  /** false when the payee account was removed since (its money stays in the period). */
  exists: boolean;
}

export interface PeriodTotals {
  from: string;
  to: string;
  /**
   * Every genuine transfer into the shop's own accounts: verified + amount mismatches (both ways) +
   * stale + edited slips' real transfers. Equals the bank statement's credits for the checked transfers.
   */
  received: Money & {
    /**
     * The part of received the bank moved before the period began (its `transDate`): a late-night transfer
     * checked after midnight, an old slip. It is on an earlier day's statement: received minus earlier is
     * what this period's statement holds of the checked transfers.
     */
    earlier: Money;
    byPayee: PayeeMoney[];
    byChannel: Array<Money & { source: string }>;
  };
  /** SUCCESS, fresh (not stale). */
  verified: Money;
  /**
   * Received but worth a look: amount under or over the expected amount, stale slips (counted only
   * here), and edited slips whose real, smaller transfer reached the shop (the bank's amount; the
   * picture's extra is in stopped.forged).
   */
  needsLook: { under: MismatchMoney; over: MismatchMoney; stale: Money; edited: Money };
  /** Money that never reached the shop: duplicates and forged or edited slips (what trusting the picture would have cost), and transfers to another account. */
  stopped: { duplicate: Money; forged: Money; receiverMismatch: Money };
}

export type PeriodName = 'today' | 'week' | 'month';

/** GET /api/dashboard/reports/totals: today, this week (Monday first) and this month in the business time zone. */
export interface TotalsSummary {
  timeZone: string;
  periods: Record<PeriodName, PeriodTotals>;
}
