import { Type, type Static } from 'typebox';
import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';
import { enqueueOutbox, notifyOutbox } from '../../outbox/outbox-repo.js';
import type { OutboxHandler } from '../../outbox/outbox-types.js';
import { defineOutboxJob } from '../../outbox/outbox-registry.js';
import type { LineOwnerAlerts } from '../line/line-owner-alerts.js';
import type { MailService } from '../mail/mail-service.js';
import { TRIAL_PLAN, type PlanService } from '../plans/plan-service.js';
import type { QuotaService } from '../quota/quota-service.js';
import type { Shop, ShopService } from '../shops/shop-service.js';
import { settingsOf, type ShopSettings } from '../shops/shop-settings.js';
import type { AccountService } from '../accounts/account-service.js';
import type { TransactionService } from '../transactions/transaction-service.js';
import { createReportsRepo } from './reports-repo.js';
import type { ReportTotals } from './reports-totals.js';
import { dayRange, formatSatang, localDay, localParts } from './reports-time.js';
import { MONEY_WORDS } from '@slipcheck/sdk';

export const DAILY_SUMMARY_KIND = 'report.daily_summary';

/** One shop's summary of one business-time-zone day (YYYY-MM-DD). */
export const DailySummaryJobSchema = Type.Object({
  shopId: Type.String({ minLength: 1 }),
  day: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
});
defineOutboxJob(DAILY_SUMMARY_KIND, DailySummaryJobSchema);

declare module '../../outbox/outbox-types.js' {
  interface OutboxJobs {
    'report.daily_summary': Static<typeof DailySummaryJobSchema>;
  }
}

/** The daily summary's part of the shop settings (shops/shop-settings.ts holds the defaults). */
export type SummarySettings = ShopSettings['dailySummary'];

export function summarySettingsOf(shop: Pick<Shop, 'settings'>): SummarySettings {
  return settingsOf(shop).dailySummary;
}

export interface DailySummaryFacts {
  shopName: string;
  day: string;
  /** Every genuine transfer into the shop's accounts (docs/dashboard-api.md "The money figures"). */
  receivedSatang: number;
  receivedCount: number;
  /** The part of received the bank moved before the day (a late-night transfer, an old slip): on an earlier statement. */
  earlierSatang?: number;
  earlierCount?: number;
  /**
   * "21:00" when the figures were counted before the day ended (the summary goes at the owner's time):
   * checks after it are in no summary, only in the list, so the message says until when it counts.
   * null (or absent) when the whole day is in it.
   */
  asOf?: string | null;
  verifiedSatang: number;
  verifiedCount: number;
  results: number;
  under: number;
  over: number;
  stale: number;
  /** Edited slips whose real, smaller transfer reached the shop. */
  edited: number;
  duplicates: number;
  forged: number;
  elsewhere: number;
  stoppedSatang: number;
  quotaLeft: number;
  /**
   * The shop is on its trial: what is left is of the trial's slips (its plan's limit over its days,
   * docs/architecture.md "Quota charging rule"), which no new month renews, so the message says so
   * instead of "this month". `quotaLimit` is that pool.
   */
  quotaTrial?: boolean;
  quotaLimit?: number;
  link: string;
}

/**
 * The day as the dashboard prints it: "11 พ.ย. 2569" in Thai (Buddhist era, the year Thai people read and
 * write; "2026-11-11" read as a foreign date), "11 Nov 2026" in English. The day is already the
 * business zone's, so it is formatted as a UTC date (no second zone shift).
 */
/** "21:05": a local time of day, as the summary settings store it and the message prints it. */
const clockTime = (p: { hour: number; minute: number }) => `${String(p.hour).padStart(2, '0')}:${String(p.minute).padStart(2, '0')}`;

export function summaryDay(day: string, lang: 'th' | 'en'): string {
  return new Intl.DateTimeFormat(lang === 'th' ? 'th-TH' : 'en-GB', { dateStyle: 'medium', timeZone: 'UTC' }).format(
    new Date(`${day}T00:00:00Z`),
  );
}

/** The message in the shop's language; money from integer satang, never through a float. */
export function summaryText(f: DailySummaryFacts, lang: 'th' | 'en'): { subject: string; text: string } {
  const w = MONEY_WORDS[lang];
  const day = summaryDay(f.day, lang);
  if (lang === 'en') {
    return {
      subject: `slipcheck daily summary ${day}: ${formatSatang(f.receivedSatang)} THB received`,
      text: [
        `Daily summary for ${f.shopName}, ${day}${f.asOf ? ` (until ${f.asOf})` : ''}`,
        `${w.received}: ${formatSatang(f.receivedSatang)} THB from ${f.receivedCount} slips (${f.results} checks in all)`,
        ...(f.earlierCount
          ? [
              `Of this, ${formatSatang(f.earlierSatang ?? 0)} THB from ${f.earlierCount} slips was transferred before this day: it is on an earlier day's statement`,
            ]
          : []),
        `${w.verified}: ${formatSatang(f.verifiedSatang)} THB from ${f.verifiedCount} slips`,
        `${w.needsLook}: ${f.under} ${w.under.toLowerCase()}, ${f.over} ${w.over.toLowerCase()}, ${f.stale} ${w.stale.toLowerCase()}, ${f.edited} ${w.edited.toLowerCase()}`,
        `${w.stopped}: ${f.duplicates} ${w.duplicate.toLowerCase()}, ${f.forged} ${w.forged.toLowerCase()}, ${f.elsewhere} ${w.receiverMismatch.toLowerCase()} (${formatSatang(f.stoppedSatang)} THB)`,
        f.quotaTrial ? `Trial checks left: ${f.quotaLeft} of the trial's ${f.quotaLimit}` : `Checks left this month: ${f.quotaLeft}`,
        `See the day: ${f.link}`,
      ].join('\n'),
    };
  }
  return {
    subject: `สรุปยอดประจำวัน ${day}: ${w.received} ${formatSatang(f.receivedSatang)} บาท`,
    text: [
      `สรุปยอดประจำวันของ ${f.shopName} วันที่ ${day}${f.asOf ? ` (ถึง ${f.asOf} น.)` : ''}`,
      `${w.received} ${formatSatang(f.receivedSatang)} บาท จาก ${f.receivedCount} สลิป (ตรวจทั้งหมด ${f.results} ครั้ง)`,
      ...(f.earlierCount
        ? [`ในจำนวนนี้ ${formatSatang(f.earlierSatang ?? 0)} บาท จาก ${f.earlierCount} สลิป ธนาคารโอนก่อนวันนี้ จึงอยู่ในรายการเดินบัญชีของวันก่อนหน้า`]
        : []),
      `${w.verified} ${formatSatang(f.verifiedSatang)} บาท จาก ${f.verifiedCount} สลิป`,
      `${w.needsLook}: ${w.under} ${f.under} ${w.over} ${f.over} ${w.stale} ${f.stale} ${w.edited} ${f.edited}`,
      `${w.stopped}: ${w.duplicate} ${f.duplicates} ${w.forged} ${f.forged} ${w.receiverMismatch} ${f.elsewhere} (รวม ${formatSatang(f.stoppedSatang)} บาท)`,
      f.quotaTrial ? `สิทธิ์ตรวจสลิปของช่วงทดลองใช้คงเหลือ ${f.quotaLeft} จาก ${f.quotaLimit} ครั้ง` : `โควตาคงเหลือเดือนนี้ ${f.quotaLeft} ครั้ง`,
      `ดูรายการของวันนี้: ${f.link}`,
    ].join('\n'),
  };
}

interface Deps {
  db: Db;
  clock: Clock;
  timeZone: string;
  totals: ReportTotals;
  shops: Pick<ShopService, 'get' | 'listLive'>;
  transactions: Pick<TransactionService, 'countLive'>;
  accounts: Pick<AccountService, 'activeEmailsOfShop'>;
  plans: PlanService;
  quota: QuotaService;
  /** The owner's linked LINE users (line module): skips an official account at LINE's monthly limit. */
  line: Pick<LineOwnerAlerts, 'pushToOwners'>;
  mail: MailService;
  dashboardUrl: string;
}

/**
 * Daily summary, exactly once per shop and local day. `scheduleDue` (the scheduled task
 * `reports.summary-due`: once a minute across all workers) inserts (shop, day) into daily_summaries
 * and enqueues the job in the same transaction; the primary key makes any other caller's insert (a
 * late retry of an earlier minute, a test's direct call) a no-op, so one job exists per shop and day. The job's effects are idempotent too: the LINE push carries a
 * retry key derived from (shop, day, recipient) and the e-mail a dedupe key, and the row's status is
 * set together with the job's completion.
 */
export function createDailySummary(deps: Deps) {
  const { db, clock, timeZone } = deps;
  const repo = createReportsRepo(db);

  async function scheduleDue(): Promise<number> {
    const now = clock.now();
    const day = localDay(now, timeZone);
    const p = localParts(now, timeZone);
    const hhmm = clockTime(p);
    const done = await repo.shopsWithSummary(day);
    let queued = 0;
    for (const shop of await deps.shops.listLive()) {
      if (done.has(shop.id)) continue;
      const cfg = summarySettingsOf(shop);
      if (!cfg.enabled || hhmm < cfg.time) continue;
      const inserted = await db.transaction().execute(async (trx) => {
        if (!(await repo.insertQueued(trx, shop.id, day, now.toISOString()))) return false;
        const jobId = await enqueueOutbox(trx, { kind: DAILY_SUMMARY_KIND, shopId: shop.id, payload: { shopId: shop.id, day } }, now);
        await repo.setJob(trx, shop.id, day, jobId);
        return true;
      });
      if (inserted) queued++;
    }
    if (queued) notifyOutbox(DAILY_SUMMARY_KIND);
    return queued;
  }

  async function facts(shop: Shop, day: string): Promise<DailySummaryFacts> {
    const { from, to } = dayRange(day, timeZone);
    const t = await deps.totals.between(shop.id, from, to);
    const results = await deps.transactions.countLive(shop.id, from.toISOString(), to.toISOString());
    const plan = await deps.plans.get(shop.planCode);
    const q = await deps.quota.snapshot(shop, plan);
    const st = t.stopped;
    const now = deps.clock.now();
    const p = localParts(now, timeZone);
    return {
      asOf: now < to ? clockTime(p) : null,
      shopName: shop.name,
      day,
      receivedSatang: t.received.amountSatang,
      receivedCount: t.received.count,
      earlierSatang: t.received.earlier.amountSatang,
      earlierCount: t.received.earlier.count,
      verifiedSatang: t.verified.amountSatang,
      verifiedCount: t.verified.count,
      results,
      under: t.needsLook.under.count,
      over: t.needsLook.over.count,
      stale: t.needsLook.stale.count,
      edited: t.needsLook.edited.count,
      duplicates: st.duplicate.count,
      forged: st.forged.count,
      elsewhere: st.receiverMismatch.count,
      stoppedSatang: st.duplicate.amountSatang + st.forged.amountSatang + st.receiverMismatch.amountSatang,
      quotaLeft: q.remaining,
      quotaTrial: plan.code === TRIAL_PLAN,
      quotaLimit: q.limit,
      // Bangkok days: the transactions screen opens with its date filters set to this day.
      link: `${deps.dashboardUrl}/transactions?from=${day}&to=${day}`,
    };
  }

  const handler: OutboxHandler<typeof DAILY_SUMMARY_KIND> = async (job, ctx) => {
    const p = job.payload; // its shape and the day's format were checked against the schema before the run
    const row = await repo.get(p.shopId, p.day);
    if (!row || row.status !== 'queued') return;
    const shop = await deps.shops.get(p.shopId).catch(() => null);
    const finish = (status: string, line = 0, email = 0) =>
      db.transaction().execute(async (trx) => {
        await repo.finish(trx, p.shopId, p.day, { status, line, email, atIso: ctx.now().toISOString() });
        await ctx.completeIn(trx);
      });
    if (!shop) return finish('skipped');
    const cfg = summarySettingsOf(shop);
    const f = await facts(shop, p.day);
    if (!cfg.enabled || (f.results === 0 && !cfg.sendEmpty)) return finish('skipped');
    const lang = shop.language === 'en' ? 'en' : 'th';
    const msg = summaryText(f, lang);
    let line = 0;
    // A failed push (a token reissued in the LINE console but not in the dashboard, LINE down) must not
    // hold back the e-mail: the job used to fail before it, on every retry, and the owner got no summary
    // at all. The failure is raised after the e-mail, so the job is retried; the push's retry key and the
    // e-mail's dedupe key make a retry send only what is missing. (An official account at LINE's monthly
    // limit is no failure: pushToOwners skips it and marks it.)
    let lineFailure: unknown = null;
    if (cfg.line) {
      if (ctx.signal.aborted) return;
      try {
        line = await deps.line.pushToOwners(shop.id, [{ type: 'text', text: msg.text }], (to) => `daily-summary:${shop.id}:${p.day}:${to}`);
      } catch (e) {
        lineFailure = e;
      }
    }
    let email = 0;
    if (cfg.email) {
      for (const address of await deps.accounts.activeEmailsOfShop(shop.id, { role: 'owner' })) {
        await deps.mail.send(address, { template: 'daily-summary', subject: msg.subject, text: msg.text }, shop.id, {
          dedupeKey: `daily-summary:${shop.id}:${p.day}:${address}`,
        });
        email++;
      }
    }
    if (lineFailure) throw lineFailure;
    await finish('sent', line, email);
  };

  return { scheduleDue, facts, handler };
}
export type DailySummary = ReturnType<typeof createDailySummary>;
