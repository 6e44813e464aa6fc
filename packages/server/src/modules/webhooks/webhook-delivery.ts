import { signWebhookPayload } from '@slipcheck/sdk/webhook-signature';
import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { enqueueOutbox } from '../../outbox/outbox-repo.js';
import type { OutboxFinalFailureHandlers, OutboxHandler, OutboxHandlers } from '../../outbox/outbox-types.js';
import type { AuditService } from '../audit/audit-service.js';
import type { PlanService } from '../plans/plan-service.js';
import { recordFromRow } from '../transactions/transaction-record.js';
import { RESULT_CREATED_JOB } from '../verification/verification-jobs.js';
import { buildEvent } from './webhook-events.js';
import type { WebhookSender } from './webhook-sender.js';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from './webhook-tables.js';
import { metrics } from '../../lib/metrics.js';

/** Outbox kind owned by this module: one attempt round of one webhook delivery. */
export const WEBHOOK_DELIVER_JOB = 'webhook.deliver';

export interface WebhookDeliverJob {
  deliveryId: string;
  round: number;
  manual?: boolean;
}

declare module '../../outbox/outbox-types.js' {
  interface OutboxJobs {
    'webhook.deliver': WebhookDeliverJob;
  }
}

export interface WebhookDeliveryDeps {
  db: Db;
  clock: Clock;
  audit: AuditService;
  plans: PlanService;
  box: SecretBox;
  sender: WebhookSender;
  /** Seconds before each retry; its length is the number of retries (5 by default). */
  retrySchedule: number[];
}

export const DELIVERY_HEADERS = {
  signature: 'X-Service-Signature',
  deliveryId: 'X-Service-Delivery-Id',
  event: 'X-Service-Event',
  attempt: 'X-Service-Attempt',
} as const;

const cut = (s: string | null) => (s === null ? null : s.length > 500 ? s.slice(0, 500) : s);

/** The secrets that sign now: the current one, plus the previous one while its rotation overlap lasts. */
export function signingSecrets(box: SecretBox, ep: WebhookEndpointsTable, now: Date): string[] {
  const list = [box.decrypt(ep.secret_enc, ep.id)];
  if (ep.previous_secret_enc && ep.previous_secret_expires_at && ep.previous_secret_expires_at > now.toISOString()) {
    list.push(box.decrypt(ep.previous_secret_enc, ep.id));
  }
  return list;
}

export function createWebhookDelivery(deps: WebhookDeliveryDeps) {
  const { db, clock, audit, plans, box, sender, retrySchedule } = deps;

  function retryDelayMs(round: number, retryAfterMs: number | null): number {
    const base = (retrySchedule[round] ?? 0) * 1000 * (0.8 + Math.random() * 0.4);
    return Math.max(Math.round(base), retryAfterMs ?? 0);
  }

  /**
   * One attempt: sends, then records the attempt, the delivery state and the next round in one
   * transaction, together with the outbox completion when run by the worker. A round taken back
   * from a dead worker first records that worker's attempt as `lost` (its answer was never seen).
   */
  async function runAttempt(a: {
    delivery: WebhookDeliveriesTable;
    endpoint: WebhookEndpointsTable;
    round: number;
    manual: boolean;
    workerId: string | null;
    signal?: AbortSignal;
    completeIn?: (trx: Db) => Promise<void>;
    takenBack?: boolean;
  }) {
    const { delivery: d, endpoint: ep, round, manual } = a;
    const started = clock.now();
    const attemptRow = (status: string) => ({
      id: newId('wha', started.getTime()),
      delivery_id: d.id,
      shop_id: d.shop_id,
      endpoint_id: ep.id,
      event_id: d.event_id,
      round,
      manual: manual ? 1 : 0,
      status,
      response_code: null,
      duration_ms: null,
      error: null,
      next_attempt_at: null,
      worker_id: a.workerId,
      started_at: started.toISOString(),
      finished_at: null as string | null,
    });
    if (a.takenBack) {
      // The previous worker died during this round: whether the receiver got that request is unknown.
      const lost = {
        ...attemptRow('lost'),
        id: newId('wha', started.getTime() - 1),
        started_at: new Date(started.getTime() - 1).toISOString(),
      };
      await db
        .insertInto('webhook_attempts')
        .values({ ...lost, error: 'worker stopped before the answer was recorded; round sent again', finished_at: started.toISOString() })
        .execute();
    }
    const attempt = attemptRow('delivered');

    const t = Math.floor(started.getTime() / 1000);
    const result = await sender.send({
      url: ep.url,
      body: d.payload,
      signal: a.signal,
      headers: {
        [DELIVERY_HEADERS.signature]: signWebhookPayload(d.payload, signingSecrets(box, ep, started), t),
        [DELIVERY_HEADERS.deliveryId]: d.id,
        [DELIVERY_HEADERS.event]: d.event_kind,
        [DELIVERY_HEADERS.attempt]: String(round),
      },
    });
    if (a.signal?.aborted) return null; // stopped hard: write nothing; the lease takeback re-runs this round

    const finished = clock.now();
    const retriesLeft = !manual && !d.is_test && !result.ok && !result.gone && round < retrySchedule.length;
    const next = retriesLeft ? new Date(finished.getTime() + retryDelayMs(round, result.retryAfterMs)) : null;
    const status = result.ok ? 'delivered' : next ? 'retrying' : 'failed';
    metrics.webhookDeliveries.inc({ outcome: status === 'retrying' ? 'retry' : status });
    const error = cut(result.gone ? `${result.error}: endpoint disabled (410 Gone)` : result.error);
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('webhook_attempts')
        .values({
          ...attempt,
          status: result.ok ? 'delivered' : 'failed',
          response_code: result.statusCode,
          duration_ms: result.durationMs,
          error,
          next_attempt_at: next?.toISOString() ?? null,
          finished_at: finished.toISOString(),
        })
        .execute();
      await trx
        .updateTable('webhook_deliveries')
        .set((eb) => ({
          status,
          attempts: eb('attempts', '+', 1),
          round,
          last_status_code: result.statusCode,
          last_error: error,
          last_duration_ms: result.durationMs,
          next_attempt_at: next?.toISOString() ?? null,
          delivered_at: result.ok ? finished.toISOString() : d.delivered_at,
          updated_at: finished.toISOString(),
        }))
        .where('id', '=', d.id)
        .execute();
      if (next) {
        await enqueueOutbox(
          trx,
          {
            kind: WEBHOOK_DELIVER_JOB,
            shopId: d.shop_id,
            payload: { deliveryId: d.id, round: round + 1 },
            runAt: next,
          },
          finished,
        );
      }
      if (result.gone && !d.is_test) {
        // The receiver says the URL is gone for good: stop sending there until the owner re-enables it.
        await trx
          .updateTable('webhook_endpoints')
          .set({ status: 'disabled', disabled_reason: 'GONE', updated_at: finished.toISOString() })
          .where('id', '=', ep.id)
          .where('shop_id', '=', ep.shop_id)
          .execute();
        await audit.record(
          {
            shopId: ep.shop_id,
            actor: 'system',
            action: 'webhook.endpoint.disable',
            target: ep.id,
            detail: { reason: 'GONE', deliveryId: d.id },
          },
          trx,
        );
      }
      if (a.completeIn) await a.completeIn(trx);
    });
    return { attemptId: attempt.id, status, result, nextAttemptAt: next };
  }

  /** `result.created`: one delivery per enabled endpoint subscribed to the event's kind. */
  const onResultCreated: OutboxHandler<typeof RESULT_CREATED_JOB> = async (job, ctx) => {
    const p = job.payload;
    if (!p?.transactionId || !p.shopId) return;
    const row = await db
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', p.transactionId)
      .where('shop_id', '=', p.shopId)
      .executeTakeFirst();
    if (!row) return;
    const shop = await db.selectFrom('shops').select(['plan_code', 'deleted_at']).where('id', '=', p.shopId).executeTakeFirst();
    if (!shop || shop.deleted_at) return;
    const plan = await plans.get(shop.plan_code).catch(() => null);
    if (!plan?.webhooks) return; // trial and plans without webhooks get no deliveries
    const now = ctx.now();
    const event = buildEvent(recordFromRow(row), now);
    const endpoints = (
      await db.selectFrom('webhook_endpoints').selectAll().where('shop_id', '=', p.shopId).where('status', '=', 'enabled').execute()
    ).filter((ep) => ep.events.split(',').includes(event.kind));
    if (!endpoints.length) return;
    await db.transaction().execute(async (trx) => {
      for (const ep of endpoints) {
        const id = newId('whd', now.getTime());
        await trx
          .insertInto('webhook_deliveries')
          .values({
            id,
            shop_id: p.shopId,
            endpoint_id: ep.id,
            event_id: event.id,
            event_kind: event.kind,
            transaction_id: row.id,
            payload: event.body,
            is_test: 0,
            status: 'pending',
            attempts: 0,
            round: 0,
            last_status_code: null,
            last_error: null,
            last_duration_ms: null,
            next_attempt_at: now.toISOString(),
            delivered_at: null,
            created_at: now.toISOString(),
            updated_at: now.toISOString(),
          })
          .execute();
        // Claimed by this worker: the first attempt starts right after this commit, without a claim round trip.
        await ctx.enqueueClaimed(trx, {
          kind: WEBHOOK_DELIVER_JOB,
          shopId: p.shopId,
          payload: { deliveryId: id, round: 0 },
        });
      }
      await ctx.completeIn(trx);
    });
  };

  /** `webhook.deliver`: one attempt round of one delivery. */
  const onDeliver: OutboxHandler<typeof WEBHOOK_DELIVER_JOB> = async (job, ctx) => {
    const p = job.payload;
    const d = await db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', p?.deliveryId ?? '')
      .executeTakeFirst();
    // Stale jobs (already delivered, failed or cancelled meanwhile) do nothing.
    if (!d || !['pending', 'retrying'].includes(d.status)) return;
    const ep = await db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', d.endpoint_id)
      .where('shop_id', '=', d.shop_id)
      .executeTakeFirst();
    if (!ep || ep.status !== 'enabled') {
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('webhook_deliveries')
          .set({
            status: 'cancelled',
            last_error: ep ? 'endpoint disabled' : 'endpoint deleted',
            next_attempt_at: null,
            updated_at: ctx.now().toISOString(),
          })
          .where('id', '=', d.id)
          .execute();
        await ctx.completeIn(trx);
      });
      return;
    }
    await runAttempt({
      delivery: d,
      endpoint: ep,
      round: p.round ?? 0,
      manual: !!p.manual,
      workerId: ctx.workerId,
      signal: ctx.signal,
      completeIn: ctx.completeIn,
      takenBack: job.takenBack,
    });
  };

  /** A delivery job the worker gave up on (it kept crashing or hanging): the delivery is failed, so the owner can redeliver it. */
  const onDeliverFailed: NonNullable<OutboxFinalFailureHandlers[typeof WEBHOOK_DELIVER_JOB]> = async (job, error) => {
    const p = job.payload;
    await db
      .updateTable('webhook_deliveries')
      .set({
        status: 'failed',
        last_error: `delivery could not be attempted: ${error}`.slice(0, 500),
        next_attempt_at: null,
        updated_at: clock.now().toISOString(),
      })
      .where('id', '=', p?.deliveryId ?? '')
      .where('status', 'in', ['pending', 'retrying'])
      .execute();
  };

  return {
    runAttempt,
    handlers: { [RESULT_CREATED_JOB]: onResultCreated, [WEBHOOK_DELIVER_JOB]: onDeliver } satisfies OutboxHandlers,
    onFinalFailure: { [WEBHOOK_DELIVER_JOB]: onDeliverFailed } satisfies OutboxFinalFailureHandlers,
  };
}
export type WebhookDelivery = ReturnType<typeof createWebhookDelivery>;
