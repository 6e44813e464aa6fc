import type { Config } from '../../config.js';
import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';
import { createSecretBox } from '../../lib/secret-box.js';
import type { OutboxHandler, OutboxHandlers, OutboxKind } from '../../outbox/outbox-types.js';
import { OWNER_ALERT_JOB } from '../mail/mail-owner-alerts.js';
import type { AuditService } from '../audit/audit-service.js';
import type { PlanService } from '../plans/plan-service.js';
import type { ShopService } from '../shops/shop-service.js';
import type { DecodeResult } from '../slip-qr/slip-qr-decoder.js';
import type { TransactionService } from '../transactions/transaction-service.js';
import { createLineChannelSecrets } from './line-channel-secrets.js';
import { createLineChannelService } from './line-channel-service.js';
import { createLineClient } from './line-client.js';
import { createLineDeliveryRepo } from './line-delivery-repo.js';
import { createLineEventHandler, type LineEventHandlerDeps } from './line-event-handler.js';
import { createLineEventLog, LINE_EVENT_JOB } from './line-event-log.js';
import { createLineGroupService } from './line-group-service.js';
import { createLineLinkCodeService } from './line-link-code-service.js';
import { createLineOwnerAlerts } from './line-owner-alerts.js';
import { createLineOwnerService } from './line-owner-service.js';
import { createLineRepo } from './line-repo.js';
import { createMonthlyLimitGate } from './line-monthly-limit.js';

export interface LineModuleDeps {
  config: Config;
  db: Db;
  clock: Clock;
  audit: AuditService;
  plans: PlanService;
  shops: ShopService;
  transactions: Pick<TransactionService, 'get' | 'list'>;
  /** The master secret(s), newest first; channel secrets and tokens are sealed under a key derived from it. */
  secret: string | string[];
  verifySlip: LineEventHandlerDeps['verifySlip'];
  reusedTransfer: LineEventHandlerDeps['reusedTransfer'];
  decode?: (image: Buffer, shopId?: string) => Promise<DecodeResult>;
  log?: { warn(obj: unknown, msg?: string): void };
  /** The dashboard's address (owner alerts link the page where a fix is made). */
  dashboardUrl: string;
  /** A dashboard person's role (accounts): only the owner's link codes link a chat for the owner's alerts. */
  roleOf: (userId: string) => Promise<'owner' | 'staff' | null>;
}

/**
 * Builds the LINE channel: the linking services (channels, groups, link codes, owner recipients), the
 * event log behind the webhook, the inbound event handler, owner alerts and their outbox handlers.
 */
export function createLineModule(deps: LineModuleDeps) {
  const { config, db, clock, audit, plans, shops, transactions } = deps;
  const client = createLineClient({
    apiBaseUrl: config.LINE_API_BASE_URL,
    dataApiBaseUrl: config.LINE_DATA_API_BASE_URL,
    timeoutMs: config.LINE_HTTP_TIMEOUT_MS,
    retries: config.LINE_HTTP_RETRIES,
    maxImageBytes: config.MAX_IMAGE_BYTES,
    allowPrivateExternal: config.WEBHOOK_ALLOW_PRIVATE,
  });
  const repo = createLineRepo(db);
  const delivery = createLineDeliveryRepo({ db, clock, timeZone: config.TIME_ZONE });
  const secrets = createLineChannelSecrets(createSecretBox({ secrets: deps.secret, purpose: 'line-channel' }));
  const groups = createLineGroupService({ db, repo, clock, audit, plans, silentDefault: config.LINE_GROUP_SILENT_NON_SLIP });
  const owners = createLineOwnerService({ db, repo, audit, secrets });
  const channels = createLineChannelService({
    db,
    repo,
    delivery,
    clock,
    audit,
    plans,
    shops,
    secrets,
    client,
    groups,
    owners,
    publicBaseUrl: config.PUBLIC_URL || `http://${config.HOST}:${config.PORT}`,
  });
  const linkCodes = createLineLinkCodeService({
    repo,
    clock,
    audit,
    shops,
    groups,
    owners,
    ttlMinutes: config.LINE_LINK_CODE_TTL_MINUTES,
    roleOf: deps.roleOf,
  });
  const eventLog = createLineEventLog({ db, clock, delivery });
  const pushGate = createMonthlyLimitGate({ delivery, client, clock });
  const events = createLineEventHandler({
    clock,
    channels,
    groups,
    owners,
    linkCodes,
    delivery,
    pushGate,
    client,
    shops,
    transactions,
    verifySlip: deps.verifySlip,
    reusedTransfer: deps.reusedTransfer,
    decode: deps.decode,
    timeZone: config.TIME_ZONE,
    replyTokenTtlSeconds: config.LINE_REPLY_TOKEN_TTL_SECONDS,
    log: deps.log,
    miniAppUrl: config.LIFF_ID ? `https://liff.line.me/${config.LIFF_ID}` : null,
  });
  const ownerAlerts = createLineOwnerAlerts({
    owners,
    delivery,
    pushGate,
    client,
    shops,
    transactions,
    timeZone: config.TIME_ZONE,
    dashboardUrl: deps.dashboardUrl,
  });

  /**
   * Outbox handlers of this module. `owner.alert` is shared with e-mail: the registry composes them
   * (see composeHandlers below).
   */
  const outboxHandlers = {
    [LINE_EVENT_JOB]: async (job, ctx) => events.handle(job.payload, { shopId: job.shopId, signal: ctx.signal }),
    [OWNER_ALERT_JOB]: async (job) => {
      await ownerAlerts.handle(job.payload);
    },
  } satisfies OutboxHandlers;

  return { channels, groups, linkCodes, owners, eventLog, client, events, ownerAlerts, outboxHandlers };
}
export type LineModule = ReturnType<typeof createLineModule>;

/**
 * One `owner.alert` handler that tells every channel: LINE push and whatever else (e-mail). Each side
 * dedupes its own sends, so a retry after one side failed does not repeat the other.
 */
export function composeHandlers<K extends OutboxKind>(...handlers: Array<OutboxHandler<K> | undefined>): OutboxHandler<K> {
  const list = handlers.filter((h): h is OutboxHandler<K> => !!h);
  return async (job, ctx) => {
    const errors: unknown[] = [];
    for (const h of list) {
      try {
        await h(job, ctx);
      } catch (e) {
        errors.push(e);
      }
    }
    if (errors.length) throw errors[0];
  };
}
