import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { periodOf } from '../../lib/period.js';
import type { OwnerAlertJob } from '../mail/mail-owner-alerts.js';
import type { ShopService } from '../shops/shop-service.js';
import type { TransactionService } from '../transactions/transaction-service.js';
import { LineApiError, retryKeyFor, type LineClient } from './line-client.js';
import type { LineDeliveryRepo } from './line-delivery-repo.js';
import { formatAmount, formatTime, ownerAlertMessage, type Lang } from './line-messages.js';
import type { LineOwnerService } from './line-owner-service.js';

/**
 * Pushes `owner.alert` outbox jobs to every LINE user linked as the shop's owner. Period alerts
 * (quota 80/100 %, trial ending) go out once per period however many jobs ask for them; a stale-slip
 * alert once per transaction. The mark is written after a successful push, so a failed push is retried
 * by the outbox, and the push retry key makes LINE drop a second copy of a push it already took.
 */
export function createLineOwnerAlerts(deps: {
  clock: Clock;
  owners: Pick<LineOwnerService, 'targets'>;
  delivery: LineDeliveryRepo;
  client: LineClient;
  shops: Pick<ShopService, 'get'>;
  transactions: Pick<TransactionService, 'get'>;
  timeZone: string;
}) {
  const { clock, client, shops, delivery: repo } = deps;

  return {
    async handle(p: OwnerAlertJob): Promise<{ sent: number }> {
      if (!p?.shopId || !p.type) return { sent: 0 };
      const targets = await deps.owners.targets(p.shopId);
      if (!targets.length) return { sent: 0 };
      const shop = await shops.get(p.shopId).catch(() => null);
      if (!shop) return { sent: 0 };
      const lang: Lang = shop.language === 'en' ? 'en' : 'th';

      const once =
        p.type === 'STALE_SLIP'
          ? { notice: `STALE_SLIP:${p.transactionId ?? 'none'}`, period: 'once' }
          : {
              notice: `ALERT_${p.type}`,
              period: p.type === 'TRIAL_ENDING' ? `trial:${shop.trialEndsAt ?? ''}` : periodOf(clock.now(), deps.timeZone).periodMonth,
            };
      if (await repo.hasNotice(p.shopId, once.notice, once.period)) return { sent: 0 };

      const ctx: Parameters<typeof ownerAlertMessage>[2] = { shopName: shop.name };
      if (p.transactionId) {
        const tx = await deps.transactions.get(p.shopId, p.transactionId).catch((e: unknown) => {
          if (e instanceof AppError && e.statusCode === 404) return null; // erased since: the alert goes without the amount
          throw e;
        });
        if (tx?.amount != null) ctx.amount = formatAmount(tx.amount, lang);
      }
      if (p.type === 'TRIAL_ENDING' && shop.trialEndsAt) ctx.trialEndsAt = formatTime(shop.trialEndsAt, lang, deps.timeZone);
      const detail = p.detail ?? {};
      if (typeof detail.used === 'number') ctx.used = detail.used;
      if (typeof detail.limit === 'number') ctx.limit = detail.limit;
      const messages = ownerAlertMessage(p.type, lang, ctx);
      if (!messages.length) return { sent: 0 };

      let sent = 0;
      for (const t of targets) {
        if (await repo.monthlyLimitAt(p.shopId, t.lineChannelId)) continue; // the OA cannot push until the month turns
        try {
          const r = await client.push(
            t.token,
            t.to,
            messages,
            retryKeyFor(`owner-alert:${p.shopId}:${once.notice}:${once.period}:${t.to}`),
          );
          if (r === 'sent') await repo.countPush(t.lineChannelId);
        } catch (e) {
          // The monthly limit is terminal: mark it (the owner hears it by e-mail) instead of retrying the job.
          if (e instanceof LineApiError && e.monthlyLimit) {
            await repo.markMonthlyLimit(p.shopId, t.lineChannelId);
            continue;
          }
          throw e;
        }
        sent++;
      }
      await repo.markNotice(p.shopId, once.notice, once.period);
      return { sent };
    },
  };
}
export type LineOwnerAlerts = ReturnType<typeof createLineOwnerAlerts>;
