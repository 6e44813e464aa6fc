import type { Db } from '../../db/db.js';
import type { ShopPurge } from '../../db/shop-rows.js';
import type { Clock } from '../../lib/clock.js';
import { enqueueOutbox } from '../../outbox/outbox-repo.js';
import type { ScheduledTask } from '../../outbox/outbox-schedule.js';
import { OWNER_ALERT_JOB } from '../mail/mail-owner-alerts.js';
import type { AuditService } from '../audit/audit-service.js';
import type { ImageClaims } from '../verification/image-claims.js';
import type { ShopService } from '../shops/shop-service.js';
import { settingsOf } from '../shops/shop-settings.js';
import type { AccountService } from '../accounts/account-service.js';
import type { SessionService } from '../accounts/session-service.js';
import type { TransactionService } from '../transactions/transaction-service.js';
import type { WebhookService } from '../webhooks/webhook-service.js';

export const ERASE_GRACE_MS = 24 * 3_600_000;
export const TRIAL_ALERT_BEFORE_MS = 24 * 3_600_000;
const noRenew = async () => undefined;

/**
 * The PDPA auto-delete rule in one place: with `settings.privacy.autoDelete`, personal fields of results
 * older than the retention (months) are blanked. Null when the shop keeps its data. Exports apply it
 * too, so a file never shows what the next hourly run would blank.
 */
export function anonymizeCutoff(settings: Record<string, unknown>, now: Date, defaultRetentionMonths: number): Date | null {
  const { privacy } = settingsOf({ settings });
  if (!privacy.autoDelete) return null;
  const months = privacy.retentionMonths ?? defaultRetentionMonths;
  const cutoff = new Date(now);
  cutoff.setUTCMonth(cutoff.getUTCMonth() - months);
  return cutoff;
}

/**
 * Hourly upkeep: retention rules that must hold without anyone clicking. Each step is a scheduled task
 * of its own (container.ts, outbox/outbox-schedule.ts): one run per hour across all worker nodes. Each
 * step is also idempotent, so a run cut off by a crash and run again only repeats no-ops. The loops
 * over shops take `renew` (the scheduled job's lease renewal) and call it between shops, so a long
 * run is not taken back by another worker half-way.
 */
export function createHousekeeping(deps: {
  /** Opens the purge's transaction. */
  db: Db;
  /** Each module's purge of its rows of a shop, children before parents (container.ts lists them). */
  purges: readonly ShopPurge[];
  clock: Clock;
  audit: AuditService;
  claims: ImageClaims;
  shops: Pick<ShopService, 'erasedBefore' | 'markPurged' | 'listLive' | 'trialsEnding' | 'replaceSettings'>;
  accounts: Pick<AccountService, 'deleteResetsOfShop'>;
  sessions: Pick<SessionService, 'deleteTokensOfShop'>;
  transactions: Pick<TransactionService, 'anonymizeOlderThan'>;
  webhooks: Pick<WebhookService, 'deleteDeliveriesBefore'>;
  defaultRetentionMonths: number;
}) {
  const { db, clock, shops } = deps;
  const now = () => clock.now();

  /** Erasure: soft-deleted at request time, really deleted 24 h later. The shop row stays as an anonymous tombstone for the audit trail. */
  async function purgeErased(renew: () => Promise<void> = noRenew): Promise<number> {
    const cutoff = new Date(now().getTime() - ERASE_GRACE_MS).toISOString();
    const erased = await shops.erasedBefore(cutoff);
    for (const id of erased) {
      await renew();
      await db.transaction().execute(async (trx) => {
        await deps.sessions.deleteTokensOfShop(id, trx);
        await deps.accounts.deleteResetsOfShop(id, trx);
        for (const purge of deps.purges) await purge(trx, id);
        await shops.markPurged(id, trx);
        await deps.audit.record({ shopId: id, actor: 'system', action: 'privacy.purge', target: id }, trx);
      });
    }
    return erased.length;
  }

  /**
   * PDPA retention: shops that turned on auto-delete get personal fields of old results blanked, and the
   * webhook deliveries made before the same cutoff deleted (their payloads are copies of those fields).
   * Answers the number of results anonymised.
   */
  async function anonymizeExpired(renew: () => Promise<void> = noRenew): Promise<number> {
    let total = 0;
    for (const shop of await shops.listLive()) {
      await renew();
      const cutoff = anonymizeCutoff(shop.settings, now(), deps.defaultRetentionMonths);
      if (!cutoff) continue;
      total += await deps.transactions.anonymizeOlderThan(shop.id, cutoff.toISOString(), now().toISOString());
      await deps.webhooks.deleteDeliveriesBefore(shop.id, cutoff.toISOString(), renew);
    }
    return total;
  }

  /** One TRIAL_ENDING alert per trial, a day before it ends. */
  async function trialEndingAlerts(): Promise<number> {
    const t = now();
    const soon = new Date(t.getTime() + TRIAL_ALERT_BEFORE_MS).toISOString();
    let n = 0;
    for (const shop of await shops.trialsEnding(t.toISOString(), soon)) {
      if (settingsOf(shop).trialAlertFor === shop.trialEndsAt) continue;
      await db.transaction().execute(async (trx) => {
        await shops.replaceSettings(shop.id, { ...shop.settings, trialAlertFor: shop.trialEndsAt }, trx);
        await enqueueOutbox(
          trx,
          {
            kind: OWNER_ALERT_JOB,
            shopId: shop.id,
            payload: { type: 'TRIAL_ENDING', shopId: shop.id, detail: { trialEndsAt: shop.trialEndsAt } },
          },
          t,
        );
      });
      n++;
    }
    return n;
  }

  return {
    purgeErased,
    anonymizeExpired,
    trialEndingAlerts,
    /** Its steps as scheduled tasks, one run per slot each across all nodes. The names are slot keys: never rename one. */
    tasks(everyMs: number): ScheduledTask[] {
      return [
        { name: 'audit.prune', everyMs, run: (renew) => deps.audit.prune(renew) },
        { name: 'image-claims.prune', everyMs, run: (renew) => deps.claims.prune(renew) },
        { name: 'shops.purge-erased', everyMs, run: (renew) => purgeErased(renew) },
        { name: 'results.anonymize', everyMs, run: (renew) => anonymizeExpired(renew) },
        { name: 'shops.trial-alerts', everyMs, run: () => trialEndingAlerts() },
      ];
    },
    async runAll() {
      return {
        auditPruned: await deps.audit.prune(),
        claimsPruned: await deps.claims.prune(),
        erasedPurged: await purgeErased(),
        anonymized: await anonymizeExpired(),
        trialAlerts: await trialEndingAlerts(),
      };
    },
  };
}
export type Housekeeping = ReturnType<typeof createHousekeeping>;
