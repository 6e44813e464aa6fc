import type dns from 'node:dns';
import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';
import { createSecretBox } from '../../lib/secret-box.js';
import type { AuditService } from '../audit/audit-service.js';
import type { PlanService } from '../plans/plan-service.js';
import type { ShopService } from '../shops/shop-service.js';
import type { TransactionService } from '../transactions/transaction-service.js';
import { createWebhookDelivery } from './webhook-delivery.js';
import { createWebhookRepo } from './webhook-repo.js';
import { createWebhookSender, type WebhookSender } from './webhook-sender.js';
import { createWebhookService } from './webhook-service.js';

/** Builds the webhooks module: the service (c.webhooks) and the outbox handlers the worker runs. */
export function createWebhookModule(deps: {
  db: Db;
  clock: Clock;
  audit: AuditService;
  plans: PlanService;
  shops: ShopService;
  /** The records that result.created jobs name (webhooks never read the transactions table). */
  transactions: Pick<TransactionService, 'get'>;
  /** The container's master secret (c.secret); previous ones may follow for a master-key rotation. */
  masterSecrets: string | string[];
  config: {
    WEBHOOK_ALLOW_PRIVATE: boolean;
    WEBHOOK_TIMEOUT_MS: number;
    WEBHOOK_RETRY_SCHEDULE: number[];
    WEBHOOK_SECRET_OVERLAP_HOURS: number;
    WEBHOOK_RETENTION_DAYS: number;
    WORKER_CONCURRENCY: number;
  };
  sender?: WebhookSender;
  lookup?: typeof dns.promises.lookup;
}) {
  const { config } = deps;
  const box = createSecretBox({ secrets: deps.masterSecrets, purpose: 'webhook-endpoint-secret' });
  const sender = deps.sender ?? createWebhookSender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE });
  const repo = createWebhookRepo(deps.db);
  const delivery = createWebhookDelivery({
    db: deps.db,
    repo,
    clock: deps.clock,
    audit: deps.audit,
    plans: deps.plans,
    transactions: deps.transactions,
    shops: deps.shops,
    box,
    sender,
    retrySchedule: config.WEBHOOK_RETRY_SCHEDULE,
    sendTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
    workerConcurrency: config.WORKER_CONCURRENCY,
  });
  const service = createWebhookService({
    db: deps.db,
    repo,
    clock: deps.clock,
    audit: deps.audit,
    plans: deps.plans,
    shops: deps.shops,
    box,
    delivery,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    secretOverlapHours: config.WEBHOOK_SECRET_OVERLAP_HOURS,
    retentionDays: config.WEBHOOK_RETENTION_DAYS,
    lookup: deps.lookup,
  });
  return { service, handlers: delivery.handlers, onFinalFailure: delivery.onFinalFailure, close: () => sender.close() };
}
