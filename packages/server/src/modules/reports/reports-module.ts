import { createHash, randomBytes } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../errors.js';
import type { AccountService } from '../accounts/account-service.js';
import type { AuditService } from '../audit/audit-service.js';
import type { SessionService } from '../accounts/session-service.js';
import { newId } from '../../lib/ids.js';
import { anonymizeCutoff } from '../housekeeping/housekeeping-service.js';
import type { LineModule } from '../line/line-module.js';
import type { MailService } from '../mail/mail-service.js';
import type { PayeeService } from '../payees/payee-service.js';
import type { PlanService } from '../plans/plan-service.js';
import type { QuotaService } from '../quota/quota-service.js';
import type { ShopService } from '../shops/shop-service.js';
import { filterInstant, isDayBound, type TransactionFilters, type TransactionService } from '../transactions/transaction-service.js';
import { bankWord, MONEY_WORDS } from '@slipcheck/sdk';
import type { TransactionRecord } from '../transactions/transaction-record.js';
import { exportStream, writeExport, type ExportFormat, type ExportLang, type ExportOptions, type ExportRecord } from './reports-export.js';
import { createDailySummary } from './reports-summary.js';
import { createReportTotals } from './reports-totals.js';
import { localDay } from './reports-time.js';
import { createReportsRepo } from './reports-repo.js';

export type ExportFilters = Omit<TransactionFilters, 'cursor' | 'limit'>;

/** How long a download ticket opens its file: the page uses it at once; a copied link is dead within the minute. */
export const EXPORT_TICKET_TTL_MS = 60_000;
const ticketHash = (ticket: string) => createHash('sha256').update(ticket).digest('hex');
/** Every ticket that does not open a file (unknown, used, expired, another shop's, an ended session) answers alike. */
const ticketRefused = () =>
  new AppError('NOT_FOUND', 404, 'This download link is unknown, already used or expired; start the download again from the dashboard');

/** A redeemed ticket: the export it was issued for and who asked. */
export interface ExportTicketGrant {
  userId: string;
  filters: ExportFilters;
  format: ExportFormat;
  lang: ExportLang | undefined;
}

/** Reports: money totals, exports and the daily summary (see README.md beside this file). */
export function createReportsModule(deps: {
  db: Db;
  clock: Clock;
  timeZone: string;
  audit: AuditService;
  shops: ShopService;
  plans: PlanService;
  quota: QuotaService;
  transactions: TransactionService;
  payees: Pick<PayeeService, 'list'>;
  accounts: Pick<AccountService, 'activeEmailsOfShop'>;
  /** A download ticket opens its file only while the session that asked for it is live (see issueExportTicket). */
  sessions: Pick<SessionService, 'isActive'>;
  line: LineModule;
  mail: MailService;
  dashboardUrl: string;
  defaultRetentionMonths: number;
}) {
  const totals = createReportTotals({ transactions: deps.transactions, payees: deps.payees, clock: deps.clock, timeZone: deps.timeZone });
  const summary = createDailySummary({
    db: deps.db,
    clock: deps.clock,
    timeZone: deps.timeZone,
    totals,
    shops: deps.shops,
    transactions: deps.transactions,
    accounts: deps.accounts,
    plans: deps.plans,
    quota: deps.quota,
    line: deps.line.ownerAlerts,
    mail: deps.mail,
    dashboardUrl: deps.dashboardUrl,
  });

  const repo = createReportsRepo(deps.db);

  /**
   * A from/to bound as an instant, read as the list reads it (an hour-only offset, a leap second: the
   * export refused, then failed with a 500 on, what the list took). A date alone stands for its UTC
   * midnight here, where it is only checked, compared and named; the list reads it as a whole day.
   */
  function boundInstant(k: 'from' | 'to', v: string): Date {
    if (!isDayBound(v)) return filterInstant(k, v);
    const day = new Date(v);
    if (Number.isNaN(day.getTime())) throw new AppError('VALIDATION_ERROR', 400, `${k} must be an ISO 8601 date or date-time`);
    return day;
  }

  /** The refusals of an export request (the error envelope), before any file or ticket. */
  function checkExport(f: ExportFilters, format: ExportFormat) {
    if (format !== 'csv' && format !== 'xlsx') throw new AppError('VALIDATION_ERROR', 400, 'format must be csv or xlsx');
    const from = f.from === undefined ? undefined : boundInstant('from', f.from);
    const to = f.to === undefined ? undefined : boundInstant('to', f.to);
    if (from && to && from > to) throw new AppError('INVALID_RANGE', 400, 'from must not be after to');
    if (f.amountMinSatang !== undefined && f.amountMaxSatang !== undefined && f.amountMinSatang > f.amountMaxSatang)
      throw new AppError('INVALID_RANGE', 400, 'amountMin must not be above amountMax');
  }

  /**
   * Checks the request, records the audit event and returns the export's options. Every refusal is
   * thrown here, before a byte of the file is sent, so it reaches the client as the error envelope.
   */
  async function prepareExport(
    shopId: string,
    f: ExportFilters,
    format: ExportFormat,
    lang: ExportLang | undefined,
    actor: string,
    ip?: string | null,
  ): Promise<ExportOptions> {
    checkExport(f, format);
    const shop = await deps.shops.get(shopId);
    const options: ExportOptions = {
      format,
      lang: lang ?? (shop.language === 'en' ? 'en' : 'th'),
      timeZone: deps.timeZone,
      anonymizeBefore: anonymizeCutoff(shop.settings, deps.clock.now(), deps.defaultRetentionMonths),
    };
    // Exports carry the shop's customers' data out of the service: who took it, when and which slice.
    await deps.audit.record({
      shopId,
      actor,
      action: 'transactions.export',
      target: shopId,
      ip: ip ?? null,
      detail: { format, lang: options.lang, filters: f },
    });
    return options;
  }

  /**
   * A one-time ticket for exactly this export, for the person and session that asked (authenticated as
   * for the export itself). The browser then fetches the file with the ticket in the URL, as a real
   * download: a bearer token cannot ride on a navigation, and a long-lived one must not sit in a URL
   * (history, logs). The ticket is 256 random bits, stored as its SHA-256 only, shop-scoped, single use
   * and dead after EXPORT_TICKET_TTL_MS. Refusals of the export are thrown here, so the page shows them.
   */
  async function issueExportTicket(
    shopId: string,
    holder: { userId: string; sessionId: string },
    f: ExportFilters,
    format: ExportFormat,
    lang: ExportLang | undefined,
  ): Promise<{ ticket: string; expiresAt: string }> {
    checkExport(f, format);
    const ticket = randomBytes(32).toString('base64url');
    const now = deps.clock.now();
    const expiresAt = new Date(now.getTime() + EXPORT_TICKET_TTL_MS).toISOString();
    await repo.insertTicket({
      id: newId('dlt', now.getTime()),
      shop_id: shopId,
      user_id: holder.userId,
      session_id: holder.sessionId,
      token_hash: ticketHash(ticket),
      format,
      lang: lang ?? null,
      filters: JSON.stringify(f),
      created_at: now.toISOString(),
      expires_at: expiresAt,
      used_at: null,
    });
    return { ticket, expiresAt };
  }

  /**
   * Uses up a ticket of this shop and returns its export; the person's session must still be live (a
   * sign-out, a removed or disabled person ends their tickets as it ends their tokens). Any ticket that
   * does not qualify is refused alike (404 NOT_FOUND), another shop's included.
   */
  async function redeemExportTicket(shopId: string, ticket: string): Promise<ExportTicketGrant> {
    const row = await repo.takeTicket(shopId, ticketHash(ticket), deps.clock.now().toISOString());
    if (!row || !(await deps.sessions.isActive(row.session_id, row.user_id))) throw ticketRefused();
    return {
      userId: row.user_id,
      filters: JSON.parse(row.filters) as ExportFilters,
      format: row.format as ExportFormat,
      lang: (row.lang ?? undefined) as ExportLang | undefined,
    };
  }

  /**
   * The export's pages with the reconciliation columns: the credited amount on the row that carries its
   * transfer's money (transactions.creditsOf, the totals' rule) and the matched shop account's label, as
   * the money card names it. One read per page of 1,000 rows; the payee list once per export.
   */
  async function* withCredits(shopId: string, pages: AsyncIterable<TransactionRecord[]>, lang: ExportLang): AsyncGenerator<ExportRecord[]> {
    const payees = await deps.payees.list(shopId);
    const w = MONEY_WORDS[lang];
    const label = (payeeId: string | null | undefined, credited: boolean) => {
      if (!payeeId) return credited ? w.notRecorded : null;
      const p = payees.find((x) => x.id === payeeId);
      return p ? `${bankWord(p.bankCode, lang)} ••••${p.accountLast4} ${p.holder}` : w.removed;
    };
    for await (const page of pages) {
      const credits = await deps.transactions.creditsOf(
        shopId,
        page.map((r) => r.id),
      );
      yield page.map((r) => {
        const c = credits.get(r.id);
        const credited = !!c?.credited;
        return { ...r, creditedAmount: credited ? r.amount : null, shopAccount: label(c?.payeeId, credited) };
      });
    }
  }

  /**
   * `slipcheck-<day>.<ext>` or `slipcheck-<from>_<to>.<ext>`: Bangkok days (`TIME_ZONE`), the filter's
   * range when it has one (an open end is today), so a file saved at 06:00 Bangkok is not named after
   * yesterday's UTC date.
   */
  function exportFileName(f: Pick<ExportFilters, 'from' | 'to'>, format: ExportFormat): string {
    const day = (k: 'from' | 'to', v: string | undefined) => localDay(v ? boundInstant(k, v) : deps.clock.now(), deps.timeZone);
    const from = f.from ? day('from', f.from) : null;
    const to = day('to', f.to);
    const range = from === null || from === to ? to : `${from}_${to}`;
    return `slipcheck-${range}.${format}`;
  }

  return {
    totals,
    summary,
    prepareExport,
    issueExportTicket,
    redeemExportTicket,
    exportFileName,
    /** HTTP: a readable body streaming the file. */
    streamExport: (shopId: string, f: ExportFilters, o: ExportOptions) =>
      exportStream(withCredits(shopId, deps.transactions.iterate(shopId, f), o.lang), o),
    /** CLI and bench: write the file into `out`; returns the row count. */
    writeExport: (shopId: string, f: ExportFilters, o: ExportOptions, out: Writable) =>
      writeExport(withCredits(shopId, deps.transactions.iterate(shopId, f), o.lang), out, o),
  };
}
export type ReportsModule = ReturnType<typeof createReportsModule>;
