import type { TransactionService } from '../transactions/transaction-service.js';
import type { PayeeService } from '../payees/payee-service.js';
import type { Clock } from '../../lib/clock.js';
import { periodRanges } from './reports-time.js';
import type { Money, PayeeMoney, PeriodTotals, TotalsSummary } from './reports-types.js';
export type { Money, PeriodTotals } from './reports-types.js';

/** Statuses whose transfer reached one of the shop's accounts (the receiver check matched a payee). */
const RECEIVED_STATUSES = ['SUCCESS', 'AMOUNT_MISMATCH'] as const;
/** Stopped: the picture promised money that is not (or not again) in the shop's account. */
const STOPPED = { DUPLICATE: 'duplicate', FRAUD: 'forged', RECEIVER_MISMATCH: 'receiverMismatch' } as const;
const COUNTED = [...RECEIVED_STATUSES, 'INVALID', ...Object.keys(STOPPED)];

const zero = (): Money => ({ count: 0, amountSatang: 0 });
const add = (m: Money, count: number, amountSatang: number) => {
  m.count += count;
  m.amountSatang += amountSatang;
};

/** A stale slip refused outright (stale mode `reject`) is still a genuine transfer into the shop's account. */
const isReceived = (status: string, errorCode: string | null) =>
  (RECEIVED_STATUSES as readonly string[]).includes(status) || (status === 'INVALID' && errorCode === 'STALE_SLIP');

/**
 * An edited slip (FRAUD `EDITED_SLIP`: the picture prints more than the bank transferred) whose receiver
 * matched one of the shop's accounts: the bank's amount really arrived and is on the statement, so it
 * is received (needs a look); the rest of what the picture printed is what trusting it would have cost.
 */
const isEditedIntoShop = (status: string, errorCode: string | null, payeeId: string | null) =>
  status === 'FRAUD' && errorCode === 'EDITED_SLIP' && payeeId !== null;

/**
 * Money totals of live results, cut by the time the slip was checked (`created_at`, the same field the
 * transactions filters use) at local midnights. Amounts stay integer satang from the column to the
 * JSON: SQL sums integers, JavaScript adds integers well below 2^53, and only the screen turns them
 * into baht text. Received money is grouped on the payee account the receiver check matched (stored
 * on the record), never on the receiver as a sending bank masked it. Every received result falls in
 * exactly one of verified, under, over, stale and edited, so received = verified + under + over +
 * stale + edited.
 */
export function createReportTotals(deps: {
  transactions: Pick<TransactionService, 'liveMoneyGroups'>;
  payees: Pick<PayeeService, 'list'>;
  clock: Clock;
  timeZone: string;
}) {
  const { clock, timeZone } = deps;

  async function between(shopId: string, from: Date, to: Date): Promise<PeriodTotals> {
    const [rows, payees] = await Promise.all([
      deps.transactions.liveMoneyGroups(shopId, from.toISOString(), to.toISOString(), COUNTED),
      deps.payees.list(shopId),
    ]);
    const out: PeriodTotals = {
      from: from.toISOString(),
      to: to.toISOString(),
      received: { ...zero(), earlier: zero(), byPayee: [], byChannel: [] },
      verified: zero(),
      needsLook: { under: { ...zero(), differenceSatang: 0 }, over: { ...zero(), differenceSatang: 0 }, stale: zero(), edited: zero() },
      stopped: { duplicate: zero(), forged: zero(), receiverMismatch: zero() },
    };
    const byPayee = new Map<string | null, PayeeMoney>();
    // Every active account gets its row, so an account that received nothing says 0 rather than vanishing.
    for (const p of payees) {
      if (p.status === 'ACTIVE') byPayee.set(p.id, payeeRow(p.id));
    }
    const channels = new Map<string, PeriodTotals['received']['byChannel'][number]>();
    for (const r of rows) {
      const n = r.count;
      const s = r.amountSatang;
      const edited = isEditedIntoShop(r.status, r.errorCode, r.payeeId);
      if ((edited || isReceived(r.status, r.errorCode)) && r.superseded) {
        // A later check of the same transfer holds its money (a corrected mismatch, the genuine picture
        // after an edited one): the bank credited it once. What an edited picture printed beyond it stays stopped.
        if (edited) add(out.stopped.forged, n, r.unpaidSatang);
        continue;
      }
      if (edited || isReceived(r.status, r.errorCode)) {
        add(out.received, n, s);
        // Checked in this period, moved by the bank before it (a late-night transfer checked after
        // midnight, an old slip): on an earlier day's statement, so the card can say how much of received
        // today's statement holds.
        if (r.earlier) add(out.received.earlier, n, s);
        const p = byPayee.get(r.payeeId) ?? payeeRow(r.payeeId);
        add(p, n, s);
        byPayee.set(r.payeeId, p);
        const ch = channels.get(r.source) ?? { source: r.source, ...zero() };
        add(ch, n, s);
        channels.set(r.source, ch);
        if (edited) {
          add(out.needsLook.edited, n, s);
          add(out.stopped.forged, n, r.unpaidSatang);
        } else if (r.stale) add(out.needsLook.stale, n, s);
        else if (r.status === 'AMOUNT_MISMATCH') {
          const way = r.direction === 'over' ? out.needsLook.over : out.needsLook.under;
          add(way, n, s);
          way.differenceSatang += r.differenceSatang;
        } else add(out.verified, n, s);
        continue;
      }
      const k = STOPPED[r.status as keyof typeof STOPPED];
      // An edited slip paid elsewhere: the shop got nothing, the picture's whole amount was stopped.
      if (k) add(out.stopped[k], n, r.status === 'FRAUD' && r.errorCode === 'EDITED_SLIP' ? r.printedSatang : s);
    }
    out.received.byPayee = [...byPayee.values()].sort((a, b) => b.amountSatang - a.amountSatang);
    out.received.byChannel = [...channels.values()].sort((a, b) => b.amountSatang - a.amountSatang);
    return out;

    function payeeRow(id: string | null): PayeeMoney {
      const p = id === null ? undefined : payees.find((x) => x.id === id);
      return {
        payeeId: id,
        bankCode: p?.bankCode ?? null,
        kind: p?.kind ?? null,
        holder: p?.holder ?? null,
        accountLast4: p?.accountLast4 ?? null,
        exists: id !== null && !!p,
        ...zero(),
      };
    }
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
