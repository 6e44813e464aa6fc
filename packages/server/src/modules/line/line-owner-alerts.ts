import { AppError } from '../../errors.js';
import type { OwnerAlertJob } from '../mail/mail-owner-alerts.js';
import type { ShopService } from '../shops/shop-service.js';
import type { TransactionService } from '../transactions/transaction-service.js';
import { LineApiError, retryKeyFor, type LineClient, type LineMessage } from './line-client.js';
import type { LineDeliveryRepo } from './line-delivery-repo.js';
import type { MonthlyLimitGate } from './line-monthly-limit.js';
import { formatAmount, formatTime, ownerAlertMessage, type Lang } from './line-messages.js';
import type { LineOwnerService } from './line-owner-service.js';

/**
 * Pushes `owner.alert` outbox jobs to every LINE user linked as the shop's owner. Period alerts
 * (quota 80/100 %, trial ending) go out once per period however many jobs ask for them; a stale-slip
 * alert once per transaction. The mark is written after a successful push, so a failed push is retried
 * by the outbox, and the push retry key makes LINE drop a second copy of a push it already took.
 */
export function createLineOwnerAlerts(deps: {
  owners: Pick<LineOwnerService, 'targets'>;
  delivery: LineDeliveryRepo;
  /** Whether LINE's monthly limit holds an OA's pushes back (line-monthly-limit.ts). */
  pushGate: MonthlyLimitGate;
  client: LineClient;
  shops: Pick<ShopService, 'get'>;
  transactions: Pick<TransactionService, 'get'>;
  timeZone: string;
  /** The dashboard's address: an alert that asks for a fix links the page where it is made. */
  dashboardUrl: string;
}) {
  const { client, shops, delivery: repo } = deps;

  /**
   * Pushes to each target, skipping official accounts LINE refused for the month; LINE's monthly-limit
   * 429 is terminal (marked, the owner e-mailed once) and the next target still gets its push. Pushes
   * LINE took are counted. Returns how many targets were reached.
   */
  async function pushAll(
    shopId: string,
    targets: Array<{ to: string; token: string; lineChannelId: string }>,
    messages: LineMessage[],
    retryKeyOf: (to: string) => string,
  ): Promise<number> {
    let sent = 0;
    for (const target of targets) {
      if (await deps.pushGate.blocked(shopId, target.lineChannelId, target.token)) continue; // LINE refuses its pushes (monthly limit)
      try {
        const r = await client.push(target.token, target.to, messages, retryKeyFor(retryKeyOf(target.to)));
        if (r === 'sent') await repo.countPush(target.lineChannelId);
      } catch (e) {
        // The monthly limit is terminal: mark it (the owner hears it by e-mail) instead of retrying the job.
        if (e instanceof LineApiError && e.monthlyLimit) {
          await repo.markMonthlyLimit(shopId, target.lineChannelId);
          continue;
        }
        throw e;
      }
      sent++;
    }
    return sent;
  }

  return {
    /**
     * Pushes to every LINE user linked as the shop's owner (the daily summary): as the alerts below, an
     * official account at LINE's monthly limit is skipped, not an error that held back the job's e-mail.
     */
    async pushToOwners(shopId: string, messages: LineMessage[], retryKeyOf: (to: string) => string): Promise<number> {
      const targets = await deps.owners.targets(shopId);
      return targets.length ? pushAll(shopId, targets, messages, retryKeyOf) : 0;
    },

    async handle(alert: OwnerAlertJob): Promise<{ sent: number }> {
      if (!alert?.shopId || !alert.type) return { sent: 0 };
      const targets = await deps.owners.targets(alert.shopId);
      if (!targets.length) return { sent: 0 };
      const shop = await shops.get(alert.shopId).catch(() => null);
      if (!shop) return { sent: 0 };
      const lang: Lang = shop.language === 'en' ? 'en' : 'th';

      const detail = alert.detail ?? {};
      const once =
        alert.type === 'STALE_SLIP' || alert.type === 'EDITED_SLIP'
          ? { notice: `${alert.type}:${alert.transactionId ?? 'none'}`, period: 'once' }
          : {
              notice: `ALERT_${alert.type}`,
              // Slips refused for want of a payee account: once a day (verification's payee-refusals.ts says why).
              period:
                alert.type === 'TRIAL_ENDING'
                  ? `trial:${shop.trialEndsAt ?? ''}`
                  : alert.type === 'NO_PAYEE_CONFIGURED'
                    ? `day:${typeof detail.day === 'string' ? detail.day : ''}`
                    : repo.period(),
            };
      if (await repo.hasNotice(alert.shopId, once.notice, once.period)) return { sent: 0 };

      const ctx: Parameters<typeof ownerAlertMessage>[2] = { shopName: shop.name };
      if (alert.transactionId) {
        const tx = await deps.transactions.get(alert.shopId, alert.transactionId).catch((e: unknown) => {
          if (e instanceof AppError && e.statusCode === 404) return null; // erased since: the alert goes without the amount
          throw e;
        });
        if (tx?.amount != null) ctx.amount = formatAmount(tx.amount, lang);
      }
      if (alert.type === 'TRIAL_ENDING' && shop.trialEndsAt) ctx.trialEndsAt = formatTime(shop.trialEndsAt, lang, deps.timeZone);
      if (typeof detail.used === 'number') ctx.used = detail.used;
      if (typeof detail.limit === 'number') ctx.limit = detail.limit;
      if (detail.trial === true) ctx.trial = true;
      if (alert.type === 'NO_PAYEE_CONFIGURED') {
        if (typeof detail.refused === 'number') ctx.refused = detail.refused;
        if (typeof detail.since === 'string') ctx.since = formatTime(detail.since, lang, deps.timeZone);
        ctx.payeesUrl = `${deps.dashboardUrl}/payees`;
      }
      const messages = ownerAlertMessage(alert.type, lang, ctx);
      if (!messages.length) return { sent: 0 };

      const sent = await pushAll(
        alert.shopId,
        targets,
        messages,
        (to) => `owner-alert:${alert.shopId}:${once.notice}:${once.period}:${to}`,
      );
      await repo.markNotice(alert.shopId, once.notice, once.period);
      return { sent };
    },
  };
}
export type LineOwnerAlerts = ReturnType<typeof createLineOwnerAlerts>;
