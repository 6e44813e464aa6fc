import { Type, type Static } from 'typebox';
import { defineOutboxJob } from '../../outbox/outbox-registry.js';
import type { OutboxHandler } from '../../outbox/outbox-worker.js';
import type { ShopService } from '../shops/shop-service.js';
import { settingsOf } from '../shops/shop-settings.js';
import type { MailService } from './mail-service.js';
import { mailTemplates } from './mail-templates.js';

/**
 * Outbox kind `owner.alert`: something the shop owner must hear about. Any module may enqueue it;
 * e-mail (here) and LINE push (line module) handle it, composed into one handler by the registry.
 */
export const OWNER_ALERT_JOB = 'owner.alert';

export const OwnerAlertJobSchema = Type.Object({
  type: Type.Union([
    Type.Literal('STALE_SLIP'),
    Type.Literal('EDITED_SLIP'),
    Type.Literal('QUOTA_80'),
    Type.Literal('QUOTA_100'),
    Type.Literal('TRIAL_ENDING'),
    Type.Literal('LINE_MONTHLY_LIMIT'),
    Type.Literal('NO_PAYEE_CONFIGURED'),
  ]),
  shopId: Type.String({ minLength: 1 }),
  transactionId: Type.Optional(Type.String()),
  detail: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type OwnerAlertJob = Static<typeof OwnerAlertJobSchema>;
defineOutboxJob(OWNER_ALERT_JOB, OwnerAlertJobSchema);

declare module '../../outbox/outbox-types.js' {
  interface OutboxJobs {
    'owner.alert': OwnerAlertJob;
  }
}

/**
 * The e-mail side of outbox `owner.alert`: one message per owner, honouring the shop's notification
 * preferences (e-mail on/off; stale-slip alerts on/off). Idempotent per job, so a retry after the LINE
 * side failed does not mail twice.
 */
export function createMailOwnerAlertHandler(deps: {
  shops: Pick<ShopService, 'get'>;
  mail: Pick<MailService, 'send'>;
  /** Addresses of the shop's people who may sign in (owner and staff): the accounts module's data. */
  recipients: (shopId: string) => Promise<string[]>;
  dashboardUrl: string;
  /** TIME_ZONE: times in the text (since when slips went unchecked) are the shop's clock. */
  timeZone?: string;
}): OutboxHandler<typeof OWNER_ALERT_JOB> {
  return async (job) => {
    const p = job.payload;
    const shopId = p.shopId ?? job.shopId;
    if (!shopId) return;
    const shop = await deps.shops.get(shopId).catch(() => null);
    if (!shop) return;
    const prefs = settingsOf(shop).notifications;
    if (!prefs.email) return;
    if (p.type === 'STALE_SLIP' && !prefs.staleSlipAlerts) return;
    for (const email of await deps.recipients(shopId)) {
      await deps.mail.send(
        email,
        mailTemplates.ownerAlert({
          type: p.type,
          shopName: shop.name,
          transactionId: p.transactionId,
          detail: p.detail,
          dashboardUrl: deps.dashboardUrl,
          timeZone: deps.timeZone,
        }),
        shopId,
        { dedupeKey: `${job.id}:${email}` },
      );
    }
  };
}
