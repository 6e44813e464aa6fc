import type { Config } from '../../config.js';
import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';
import { createSecretBox } from '../../lib/secret-box.js';
import type { OutboxHandler } from '../../outbox/outbox-worker.js';
import { OUTBOX_KINDS, type OwnerAlertPayload } from '../../outbox/outbox-repo.js';
import type { AuditService } from '../audit/audit-service.js';
import type { PlanService } from '../plans/plan-service.js';
import type { ShopService } from '../shops/shop-service.js';
import type { DecodeResult } from '../slip-qr/slip-qr-decoder.js';
import { createLineClient } from './line-client.js';
import { createLineEventHandler, type LineEventHandlerDeps } from './line-event-handler.js';
import { createLineOwnerAlerts } from './line-owner-alerts.js';
import { createLineService } from './line-service.js';
import { LINE_EVENT_JOB, type LineEventJobPayload } from './line-webhook-routes.js';

export interface LineModuleDeps {
  config: Config;
  db: Db;
  clock: Clock;
  audit: AuditService;
  plans: PlanService;
  shops: ShopService;
  /** The master secret (c.secret); channel secrets and tokens are sealed under a key derived from it. */
  secret: string | string[];
  verifySlip: LineEventHandlerDeps['verifySlip'];
  decode?: (image: Buffer, shopId?: string) => Promise<DecodeResult>;
  log?: { warn(obj: unknown, msg?: string): void };
}

/** Builds the LINE channel: service (linking), inbound event handler, owner alerts and their outbox handlers. */
export function createLineModule(deps: LineModuleDeps) {
  const { config, db, clock } = deps;
  const client = createLineClient({
    apiBaseUrl: config.LINE_API_BASE_URL,
    dataApiBaseUrl: config.LINE_DATA_API_BASE_URL,
    timeoutMs: config.LINE_HTTP_TIMEOUT_MS,
    retries: config.LINE_HTTP_RETRIES,
    maxImageBytes: config.MAX_IMAGE_BYTES,
    allowPrivateExternal: config.WEBHOOK_ALLOW_PRIVATE,
  });
  const box = createSecretBox({ secrets: deps.secret, purpose: 'line-channel' });
  const service = createLineService({
    db,
    clock,
    audit: deps.audit,
    plans: deps.plans,
    shops: deps.shops,
    box,
    client,
    publicBaseUrl: config.PUBLIC_URL || `http://${config.HOST}:${config.PORT}`,
    linkCodeTtlMinutes: config.LINE_LINK_CODE_TTL_MINUTES,
    groupSilentDefault: config.LINE_GROUP_SILENT_NON_SLIP,
  });
  const events = createLineEventHandler({
    db,
    clock,
    line: service,
    client,
    shops: deps.shops,
    verifySlip: deps.verifySlip,
    decode: deps.decode,
    timeZone: config.TIME_ZONE,
    replyTokenTtlSeconds: config.LINE_REPLY_TOKEN_TTL_SECONDS,
    log: deps.log,
    miniAppUrl: config.LIFF_ID ? `https://liff.line.me/${config.LIFF_ID}` : null,
  });
  const ownerAlerts = createLineOwnerAlerts({ db, clock, line: service, client, shops: deps.shops, timeZone: config.TIME_ZONE });

  /**
   * Outbox handlers of this module. `owner.alert` is shared with e-mail: the registry composes them
   * (see lineOwnerAlertHandler's `also`).
   */
  const outboxHandlers: Record<string, OutboxHandler> = {
    [LINE_EVENT_JOB]: async (job) => events.handle(job.payload as LineEventJobPayload),
    [OUTBOX_KINDS.OWNER_ALERT]: async (job) => {
      await ownerAlerts.handle(job.payload as OwnerAlertPayload);
    },
  };

  return { service, client, events, ownerAlerts, outboxHandlers };
}
export type LineModule = ReturnType<typeof createLineModule>;

/**
 * One `owner.alert` handler that tells every channel: LINE push and whatever else (e-mail). Each side
 * dedupes its own sends, so a retry after one side failed does not repeat the other.
 */
export function composeHandlers(...handlers: Array<OutboxHandler | undefined>): OutboxHandler {
  const list = handlers.filter((h): h is OutboxHandler => !!h);
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
