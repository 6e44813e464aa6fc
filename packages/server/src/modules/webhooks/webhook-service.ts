import { randomBytes } from 'node:crypto';
import type dns from 'node:dns';
import { deleteInBatches } from '../../db/batched-delete.js';
import type { Db } from '../../db/db.js';
import { AppError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { reencryptRows } from '../../lib/reencrypt-rows.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { enqueueOutbox } from '../../outbox/outbox-repo.js';
import type { AuditService } from '../audit/audit-service.js';
import type { PlanService } from '../plans/plan-service.js';
import type { ShopService } from '../shops/shop-service.js';
import { attemptNumber, WEBHOOK_DELIVER_JOB, type WebhookDelivery } from './webhook-delivery.js';
import { buildTestEvent, WEBHOOK_EVENT_KINDS, type WebhookEventKind } from './webhook-events.js';
import { newDeliveryRow, type WebhookRepo } from './webhook-repo.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './webhook-tables.js';
import { assertPublicTarget, parseWebhookUrl } from './webhook-url-guard.js';

export const MAX_ENDPOINTS_PER_SHOP = 10;
export const DELIVERY_STATUSES = ['pending', 'retrying', 'delivered', 'failed', 'cancelled'] as const;

export interface WebhookEndpointView {
  id: string;
  url: string;
  description: string | null;
  events: WebhookEventKind[];
  status: 'enabled' | 'disabled';
  disabledReason: string | null;
  secretHint: string;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}
export interface WebhookDeliveryView {
  id: string;
  endpointId: string;
  eventId: string;
  event: string;
  transactionId: string | null;
  test: boolean;
  status: (typeof DELIVERY_STATUSES)[number];
  attempts: number;
  /** X-Service-Attempt of the latest attempt (1 = first delivery); null before the first one. */
  attempt: number | null;
  /** Attempts made without the owner: 1 + the retries (a test event gets one); a manual redelivery adds one more. */
  maxAttempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastDurationMs: number | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
}
export interface WebhookAttemptView {
  id: string;
  /** The X-Service-Attempt this attempt carried: 1 = first delivery. */
  attempt: number;
  manual: boolean;
  status: string;
  responseCode: number | null;
  durationMs: number | null;
  error: string | null;
  nextAttemptAt: string | null;
  startedAt: string;
  finishedAt: string | null;
}

export interface WebhookServiceDeps {
  repo: WebhookRepo;
  /** Only for transactions that also write an audit entry or an outbox job. */
  db: Db;
  clock: Clock;
  audit: AuditService;
  plans: PlanService;
  shops: ShopService;
  box: SecretBox;
  delivery: WebhookDelivery;
  allowPrivate: boolean;
  secretOverlapHours: number;
  retentionDays: number;
  /** Tests replace DNS. */
  lookup?: typeof dns.promises.lookup;
}

const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

function parseEvents(events: unknown): WebhookEventKind[] {
  if (events === undefined || events === null) return [...WEBHOOK_EVENT_KINDS];
  const list = (Array.isArray(events) ? events : String(events).split(',')).map((e) => String(e).trim()).filter(Boolean);
  const bad = list.filter((e) => !(WEBHOOK_EVENT_KINDS as readonly string[]).includes(e));
  if (bad.length || !list.length)
    throw new AppError('INVALID_WEBHOOK_EVENTS', 400, `events must be a non-empty list of ${WEBHOOK_EVENT_KINDS.join(', ')}`);
  return [...new Set(list)] as WebhookEventKind[];
}
function parseDescription(description: unknown): string | null {
  if (description === undefined || description === null || description === '') return null;
  if (typeof description !== 'string' || description.length > 200)
    throw new AppError('INVALID_DESCRIPTION', 400, 'description must be text of at most 200 characters');
  return description;
}

const viewOfDelivery = (r: WebhookDeliveriesTable, retries: number): WebhookDeliveryView => ({
  id: r.id,
  endpointId: r.endpoint_id,
  eventId: r.event_id,
  event: r.event_kind,
  transactionId: r.transaction_id,
  test: !!r.is_test,
  status: r.status as WebhookDeliveryView['status'],
  attempts: r.attempts,
  attempt: r.attempts > 0 ? attemptNumber(r.round) : null,
  maxAttempts: r.is_test ? 1 : 1 + retries,
  lastStatusCode: r.last_status_code,
  lastError: r.last_error,
  lastDurationMs: r.last_duration_ms,
  nextAttemptAt: r.next_attempt_at,
  deliveredAt: r.delivered_at,
  createdAt: r.created_at,
});
export const attemptView = (r: WebhookAttemptsTable): WebhookAttemptView => ({
  id: r.id,
  attempt: attemptNumber(r.round),
  manual: !!r.manual,
  status: r.status,
  responseCode: r.response_code,
  durationMs: r.duration_ms,
  error: r.error,
  nextAttemptAt: r.next_attempt_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

export function createWebhookService(deps: WebhookServiceDeps) {
  const { db, repo, clock, audit, plans, shops, box, delivery } = deps;
  const deliveryView = (r: WebhookDeliveriesTable) => viewOfDelivery(r, delivery.retries);

  const view = (r: WebhookEndpointsTable): WebhookEndpointView => {
    const now = clock.now().toISOString();
    const secret = box.decrypt(r.secret_enc, r.id);
    return {
      id: r.id,
      url: r.url,
      description: r.description,
      events: r.events.split(',') as WebhookEventKind[],
      status: r.status as 'enabled' | 'disabled',
      disabledReason: r.disabled_reason,
      secretHint: `whsec_…${secret.slice(-4)}`,
      previousSecretExpiresAt: r.previous_secret_expires_at && r.previous_secret_expires_at > now ? r.previous_secret_expires_at : null,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    };
  };

  async function requireWebhookPlan(shopId: string) {
    const shop = await shops.get(shopId);
    const plan = await plans.get(shop.planCode);
    if (!plan.webhooks) throw new AppError('PLAN_API_ACCESS_REQUIRED', 403, 'Webhooks are not included in the current plan');
  }
  async function row(shopId: string, id: string): Promise<WebhookEndpointsTable> {
    const r = await repo.endpoint(shopId, id);
    if (!r) throw notFound('Webhook endpoint');
    return r;
  }
  /** After a master-secret rotation (SECRET_KEY_PREVIOUS), re-seal every stored secret under the current key. */
  async function reencryptSecrets(): Promise<number> {
    return reencryptRows(
      box,
      await repo.sealedSecrets(),
      (r) => ({ secret_enc: { value: r.secret_enc, aad: r.id }, previous_secret_enc: { value: r.previous_secret_enc, aad: r.id } }),
      (r, resealed) =>
        repo.resealSecrets(r.id, r.secret_enc, { secret_enc: resealed.secret_enc!, previous_secret_enc: resealed.previous_secret_enc }),
    );
  }
  async function deliveryOf(shopId: string, deliveryId: string): Promise<WebhookDeliveriesTable> {
    const found = await repo.delivery(shopId, deliveryId);
    if (!found) throw notFound('Webhook delivery');
    return found;
  }
  async function checkedUrl(raw: unknown): Promise<string> {
    const u = parseWebhookUrl(raw, { allowPrivate: deps.allowPrivate });
    await assertPublicTarget(u, { allowPrivate: deps.allowPrivate, lookup: deps.lookup });
    return u.toString();
  }

  return {
    reencryptSecrets,
    async addEndpoint(shopId: string, input: { url: string; description?: string | null; events?: string[] | string }, actor = 'system') {
      await requireWebhookPlan(shopId);
      const events = parseEvents(input.events);
      const description = parseDescription(input.description);
      const url = await checkedUrl(input.url);
      if ((await repo.countEndpoints(shopId)) >= MAX_ENDPOINTS_PER_SHOP)
        throw new AppError('WEBHOOK_ENDPOINT_LIMIT', 409, `A shop can have at most ${MAX_ENDPOINTS_PER_SHOP} webhook endpoints`);
      const now = clock.now().toISOString();
      const id = newId('whe');
      const secret = newSecret();
      await db.transaction().execute(async (trx) => {
        await repo.insertEndpoint(
          {
            id,
            shop_id: shopId,
            url,
            description,
            events: events.join(','),
            status: 'enabled',
            disabled_reason: null,
            secret_enc: box.encrypt(secret, id),
            previous_secret_enc: null,
            previous_secret_expires_at: null,
            created_at: now,
            updated_at: now,
          },
          trx,
        );
        await audit.record({ shopId, actor, action: 'webhook.endpoint.add', target: id, detail: { url, events } }, trx);
      });
      return { endpoint: view(await row(shopId, id)), secret };
    },

    async list(shopId: string): Promise<WebhookEndpointView[]> {
      return (await repo.endpointsOf(shopId)).map(view);
    },

    async get(shopId: string, endpointId: string): Promise<WebhookEndpointView> {
      return view(await row(shopId, endpointId));
    },

    async update(
      shopId: string,
      endpointId: string,
      patch: { url?: string; description?: string | null; events?: string[] | string },
      actor = 'system',
    ) {
      const r = await row(shopId, endpointId);
      const set: Partial<WebhookEndpointsTable> = { updated_at: clock.now().toISOString() };
      if (patch.url !== undefined) set.url = await checkedUrl(patch.url);
      if (patch.description !== undefined) set.description = parseDescription(patch.description);
      if (patch.events !== undefined) set.events = parseEvents(patch.events).join(',');
      await repo.updateEndpoint(shopId, r.id, set);
      if (set.url && set.url !== r.url)
        await audit.record({ shopId, actor, action: 'webhook.endpoint.update', target: r.id, detail: { url: set.url } });
      return view(await row(shopId, r.id));
    },

    async disable(shopId: string, endpointId: string, actor = 'system') {
      const r = await row(shopId, endpointId);
      await repo.updateEndpoint(shopId, r.id, { status: 'disabled', disabled_reason: 'MANUAL', updated_at: clock.now().toISOString() });
      await audit.record({ shopId, actor, action: 'webhook.endpoint.disable', target: r.id });
      return view(await row(shopId, r.id));
    },

    async enable(shopId: string, endpointId: string, actor = 'system') {
      const r = await row(shopId, endpointId);
      await requireWebhookPlan(shopId);
      await repo.updateEndpoint(shopId, r.id, { status: 'enabled', disabled_reason: null, updated_at: clock.now().toISOString() });
      await audit.record({ shopId, actor, action: 'webhook.endpoint.enable', target: r.id });
      return view(await row(shopId, r.id));
    },

    /** Deletes the endpoint and its delivery history; queued attempts find it gone and cancel. */
    async delete(shopId: string, endpointId: string, actor = 'system'): Promise<{ deleted: true; id: string }> {
      const r = await row(shopId, endpointId);
      await db.transaction().execute(async (trx) => {
        await repo.deleteEndpoint(shopId, r.id, trx);
        await audit.record({ shopId, actor, action: 'webhook.endpoint.delete', target: r.id, detail: { url: r.url } }, trx);
      });
      return { deleted: true, id: r.id };
    },

    async revealSecret(shopId: string, endpointId: string, actor = 'system') {
      const r = await row(shopId, endpointId);
      const now = clock.now().toISOString();
      const overlap = !!r.previous_secret_enc && !!r.previous_secret_expires_at && r.previous_secret_expires_at > now;
      await audit.record({ shopId, actor, action: 'webhook.secret.reveal', target: r.id });
      return {
        secret: box.decrypt(r.secret_enc, r.id),
        previousSecret: overlap ? box.decrypt(r.previous_secret_enc!, r.id) : null,
        previousSecretExpiresAt: overlap ? r.previous_secret_expires_at : null,
      };
    },

    /** New secret now; the old one keeps signing (second v1=) for `overlapHours` (default WEBHOOK_SECRET_OVERLAP_HOURS; 0 = at once). */
    async rotateSecret(shopId: string, endpointId: string, opts: { overlapHours?: number } = {}, actor = 'system') {
      const r = await row(shopId, endpointId);
      const hours = opts.overlapHours ?? deps.secretOverlapHours;
      if (!Number.isInteger(hours) || hours < 0 || hours > 24 * 30)
        throw new AppError('INVALID_OVERLAP', 400, 'overlapHours must be an integer from 0 to 720');
      const now = clock.now();
      const secret = newSecret();
      const expires = hours > 0 ? new Date(now.getTime() + hours * 3_600_000).toISOString() : null;
      await db.transaction().execute(async (trx) => {
        await repo.updateEndpoint(
          shopId,
          r.id,
          {
            secret_enc: box.encrypt(secret, r.id),
            previous_secret_enc: expires ? r.secret_enc : null,
            previous_secret_expires_at: expires,
            updated_at: now.toISOString(),
          },
          trx,
        );
        await audit.record({ shopId, actor, action: 'webhook.secret.rotate', target: r.id, detail: { overlapHours: hours } }, trx);
      });
      return { endpoint: view(await row(shopId, r.id)), secret, previousSecretExpiresAt: expires };
    },

    async listDeliveries(shopId: string, f: { endpointId?: string; status?: string; limit?: number; cursor?: string } = {}) {
      const limit = Math.min(100, Math.max(1, f.limit ?? 50));
      const statuses = f.status ? f.status.split(',') : undefined;
      if (statuses?.some((s) => !(DELIVERY_STATUSES as readonly string[]).includes(s)))
        throw new AppError('INVALID_STATUS', 400, `status must be one of ${DELIVERY_STATUSES.join(', ')}`);
      if (f.cursor && !/^whd_[0-9a-z]{20}$/.test(f.cursor))
        throw new AppError('INVALID_CURSOR', 400, 'cursor is not a nextCursor value returned by this endpoint');
      const rows = await repo.listDeliveries(shopId, {
        endpointId: f.endpointId,
        statuses,
        before: f.cursor || undefined,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      return { items: page.map(deliveryView), nextCursor: rows.length > limit ? page[page.length - 1]!.id : null };
    },

    async getDelivery(shopId: string, deliveryId: string) {
      const found = await deliveryOf(shopId, deliveryId);
      const attempts = await repo.attemptsOf(shopId, found.id);
      return { ...deliveryView(found), payload: JSON.parse(found.payload) as unknown, attempts: attempts.map(attemptView) };
    },

    /**
     * One manual attempt of a finished delivery (delivered, failed or cancelled), same event id and body; no
     * automatic retries after it. A send like the test event: it needs a plan with webhooks (a shop moved to the
     * trial could still send its old events again by hand while it could neither test nor enable an endpoint).
     */
    async redeliver(shopId: string, deliveryId: string, actor = 'system'): Promise<WebhookDeliveryView> {
      const now = clock.now();
      const previous = await deliveryOf(shopId, deliveryId);
      await requireWebhookPlan(shopId);
      if (previous.status === 'pending' || previous.status === 'retrying')
        throw new AppError('DELIVERY_IN_PROGRESS', 409, 'This delivery is still scheduled; wait for it to finish');
      const endpoint = await row(shopId, previous.endpoint_id);
      if (endpoint.status !== 'enabled') throw new AppError('WEBHOOK_ENDPOINT_DISABLED', 409, 'Enable the endpoint before redelivering');
      // The answer is the delivery as this request left it (pending), read before the commit: a worker
      // may deliver it the moment the job is committed, and a re-read afterwards would race it.
      const reopened = await db.transaction().execute(async (trx) => {
        if (!(await repo.reopen(previous.id, previous.status, now.toISOString(), trx)))
          throw new AppError('DELIVERY_IN_PROGRESS', 409, 'This delivery is already being redelivered');
        await enqueueOutbox(
          trx,
          {
            kind: WEBHOOK_DELIVER_JOB,
            shopId,
            payload: { deliveryId: previous.id, round: previous.round + 1, manual: true },
          },
          now,
        );
        await audit.record({ shopId, actor, action: 'webhook.delivery.redeliver', target: previous.id }, trx);
        return (await repo.delivery(shopId, previous.id, trx))!;
      });
      return deliveryView(reopened);
    },

    /** Sends a sample slip.verified now (not through the queue) and answers with the outcome; test deliveries are never retried. */
    async sendTest(shopId: string, endpointId: string, actor = 'system') {
      await requireWebhookPlan(shopId);
      const endpoint = await row(shopId, endpointId);
      const now = clock.now();
      const event = buildTestEvent(now);
      const testDelivery = newDeliveryRow({
        id: newId('whd', now.getTime()),
        shop_id: shopId,
        endpoint_id: endpoint.id,
        event_id: event.id,
        event_kind: event.kind,
        transaction_id: null,
        payload: event.body,
        isTest: true,
        nextAttemptAt: null,
        at: now.toISOString(),
      });
      await repo.insertDelivery(testDelivery);
      void actor;
      // A disabled endpoint may still be tested: that is how an owner checks a fix before enabling it.
      await delivery.runAttempt({ delivery: testDelivery, endpoint, round: 0, manual: false, workerId: null });
      return this.getDelivery(shopId, testDelivery.id);
    },

    /**
     * PDPA auto-delete of the shop (housekeeping, by its `anonymizeCutoff`): a delivery's payload is a copy
     * of the result as it was sent (sender, receiver, clientRef), so finished deliveries created before
     * the cutoff go with their attempts when the result is anonymised, whatever WEBHOOK_RETENTION_DAYS
     * says. In bounded batches, `renew` between them; one still being sent goes at a run after it ends.
     */
    async deleteDeliveriesBefore(shopId: string, cutoff: string, renew?: () => Promise<void>): Promise<number> {
      return deleteInBatches((limit) => repo.deleteFinishedBefore(cutoff, limit, shopId), renew);
    },

    /**
     * Retention: finished deliveries older than WEBHOOK_RETENTION_DAYS go with their attempts, then the
     * attempts of the same age left without a delivery (an endpoint deleted while a send was in flight),
     * in bounded batches with `renew` between them. Answers the deliveries and orphaned attempts deleted.
     */
    async prune(renew?: () => Promise<void>): Promise<number> {
      const cutoff = new Date(clock.now().getTime() - deps.retentionDays * 86_400_000).toISOString();
      const deliveries = await deleteInBatches((limit) => repo.deleteFinishedBefore(cutoff, limit), renew);
      return deliveries + (await deleteInBatches((limit) => repo.deleteOrphanAttemptsBefore(cutoff, limit), renew));
    },
  };
}
export type WebhookService = ReturnType<typeof createWebhookService>;
