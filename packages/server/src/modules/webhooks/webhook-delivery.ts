import { signWebhookPayload } from '@slipcheck/sdk/webhook-signature';
import { Type, type Static } from 'typebox';
import type { Db } from '../../db/db.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { enqueueOutbox, expediteOutboxJob } from '../../outbox/outbox-repo.js';
import { defineOutboxJob } from '../../outbox/outbox-registry.js';
import type { OutboxFinalFailureHandlers, OutboxHandler, OutboxHandlers } from '../../outbox/outbox-types.js';
import type { AuditService } from '../audit/audit-service.js';
import type { PlanService } from '../plans/plan-service.js';
import type { ShopService } from '../shops/shop-service.js';
import type { TransactionService } from '../transactions/transaction-service.js';
import { RESULT_CREATED_JOB } from '../verification/verification-jobs.js';
import { buildEvent } from './webhook-events.js';
import { retryDelayMs } from './webhook-retry-schedule.js';
import type { WebhookSender } from './webhook-sender.js';
import { newDeliveryRow, type WebhookRepo } from './webhook-repo.js';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from './webhook-tables.js';
import { metrics } from '../../lib/metrics.js';

/** Outbox kind owned by this module: one attempt round of one webhook delivery. */
export const WEBHOOK_DELIVER_JOB = 'webhook.deliver';

export const WebhookDeliverJobSchema = Type.Object({
  deliveryId: Type.String({ minLength: 1 }),
  round: Type.Integer({ minimum: 0 }),
  manual: Type.Optional(Type.Boolean()),
});
export type WebhookDeliverJob = Static<typeof WebhookDeliverJobSchema>;
defineOutboxJob(WEBHOOK_DELIVER_JOB, WebhookDeliverJobSchema);

declare module '../../outbox/outbox-types.js' {
  interface OutboxJobs {
    'webhook.deliver': WebhookDeliverJob;
  }
}

export interface WebhookDeliveryDeps {
  db: Db;
  repo: WebhookRepo;
  clock: Clock;
  audit: AuditService;
  plans: PlanService;
  /** The record a result.created job names, and its shop (other modules' data, through their services). */
  transactions: Pick<TransactionService, 'get'>;
  shops: Pick<ShopService, 'get'>;
  box: SecretBox;
  sender: WebhookSender;
  /** Seconds before each retry; its length is the number of retries (5 by default). */
  retrySchedule: number[];
  /** WEBHOOK_TIMEOUT_MS: a send that took half of it or more marks its endpoint slow (see slowEndpointSends). */
  sendTimeoutMs?: number;
  /** WORKER_CONCURRENCY: a slow endpoint gets a quarter of the worker's slots (slowEndpointSends). */
  workerConcurrency?: number;
}

/**
 * Sends at the same time, per worker process, to an endpoint not known to answer in time: its last
 * send was slow (no answer within half of WEBHOOK_TIMEOUT_MS, or none at all), a send to it has been
 * running that long, or this process has not had an answer from it yet. A quarter of the worker's
 * slots, at least 2. Each send holds a worker slot until it ends, so without a limit one shop's silent
 * receiver took every slot and every other shop's webhooks (and LINE answers, which share the slots)
 * waited behind it: 52 s late in a test with 10 s timeouts, and still one whole timeout while only
 * slow answers taught the worker which endpoints were slow. A quarter leaves a slow but working
 * receiver 8 sends at a time under the default 32 slots. One answer in time lifts the limit.
 */
export const slowEndpointSends = (workerConcurrency: number): number => Math.max(2, Math.floor(workerConcurrency / 4));

/**
 * Sends at the same time, per worker process, to any one endpoint, even one that answers in time: all
 * but the slow endpoints' quarter of the slots (24 of the default 32). An endpoint that answered in
 * time can fall silent in the middle of a burst; until one of its sends has run half a timeout it is
 * not known to be slow, and the burst's sends held every slot: other shops' webhooks (and LINE
 * answers) waited a whole WEBHOOK_TIMEOUT_MS behind it. A receiver answering in milliseconds never
 * has that many sends open at once.
 */
export const endpointSends = (workerConcurrency: number): number =>
  Math.max(slowEndpointSends(workerConcurrency), workerConcurrency - slowEndpointSends(workerConcurrency));

/** What the fan-out hands its first delivery round in memory (JobContext.enqueueClaimed). */
interface DeliverMemo {
  delivery: WebhookDeliveriesTable;
  endpoint: WebhookEndpointsTable;
}

export const DELIVERY_HEADERS = {
  signature: 'X-Service-Signature',
  deliveryId: 'X-Service-Delivery-Id',
  event: 'X-Service-Event',
  attempt: 'X-Service-Attempt',
} as const;

/**
 * The number a receiver sees in X-Service-Attempt and the owner sees on the deliveries screen: 1 for
 * the first delivery, 2 for the first retry, and so on (the OpenAPI document says so). Rows keep the
 * zero-based retry round (0 = first try) the outbox jobs already carry; this is the one conversion.
 */
export const attemptNumber = (round: number): number => round + 1;

const cut = (s: string | null) => (s === null ? null : s.length > 500 ? s.slice(0, 500) : s);

/**
 * The secrets that sign now: the current one, plus the previous one while its rotation overlap lasts.
 * `open` decrypts a sealed value (a caching one in the worker, see createWebhookDelivery).
 */
export function signingSecrets(
  box: SecretBox,
  endpoint: WebhookEndpointsTable,
  now: Date,
  open: (sealed: string, aad: string) => string = (sealed, aad) => box.decrypt(sealed, aad),
): string[] {
  const list = [open(endpoint.secret_enc, endpoint.id)];
  if (endpoint.previous_secret_enc && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > now.toISOString()) {
    list.push(open(endpoint.previous_secret_enc, endpoint.id));
  }
  return list;
}

const OPENED_SECRETS = 1000;
/** Endpoints whose last answer time a worker remembers; one forgotten is limited again until it answers. */
const KNOWN_ENDPOINTS = 10_000;

/** Not found is an answer (the record or shop is gone: nothing to send); any other failure is retried. */
const orNullIfGone = <T>(p: Promise<T>): Promise<T | null> =>
  p.catch((e: unknown) => {
    if (e instanceof AppError && e.statusCode === 404) return null;
    throw e;
  });

export function createWebhookDelivery(deps: WebhookDeliveryDeps) {
  const { db, repo, clock, audit, plans, box, sender, retrySchedule } = deps;
  const sendTimeoutMs = deps.sendTimeoutMs ?? 10_000;
  const slowSends = slowEndpointSends(deps.workerConcurrency ?? 32);
  const maxSends = endpointSends(deps.workerConcurrency ?? 32);
  /** Endpoint id -> when each of its sends running in this process started (a slot each; ms). */
  const sending = new Map<string, number[]>();
  /** Endpoint id -> whether its last send in this process was answered in time (absent: no send ended yet). */
  const answeredInTime = new Map<string, boolean>();
  /** Endpoint id -> outbox ids of the rounds this process deferred for it (see limited), oldest first. */
  const deferred = new Map<string, string[]>();
  // Decrypting a signing secret (an AES-GCM setup per call) cost more than signing with it: opened
  // secrets are kept by their sealed value and row, so a rotation (a new sealed value) is read anew.
  const opened = new Map<string, string>();
  const open = (sealed: string, aad: string) => {
    const k = `${aad}\u0000${sealed}`;
    let plain = opened.get(k);
    if (plain === undefined) {
      plain = box.decrypt(sealed, aad);
      if (opened.size >= OPENED_SECRETS) opened.delete(opened.keys().next().value!);
      opened.set(k, plain);
    }
    return plain;
  };

  /**
   * One attempt: sends, then records the attempt, the delivery state and the next round in one
   * transaction, together with the outbox completion when run by the worker. A round taken back
   * from a dead worker first records that worker's attempt as `lost` (its answer was never seen).
   */
  async function runAttempt(input: {
    delivery: WebhookDeliveriesTable;
    endpoint: WebhookEndpointsTable;
    round: number;
    manual: boolean;
    workerId: string | null;
    signal?: AbortSignal;
    completeIn?: (trx: Db) => Promise<void>;
    takenBack?: boolean;
  }) {
    const { delivery, endpoint, round, manual } = input;
    const started = clock.now();
    const attemptRow = (status: string) => ({
      id: newId('wha', started.getTime()),
      delivery_id: delivery.id,
      shop_id: delivery.shop_id,
      endpoint_id: endpoint.id,
      event_id: delivery.event_id,
      round,
      manual: manual ? 1 : 0,
      status,
      response_code: null,
      duration_ms: null,
      error: null,
      next_attempt_at: null,
      worker_id: input.workerId,
      started_at: started.toISOString(),
      finished_at: null as string | null,
    });
    if (input.takenBack) {
      // The previous worker died during this round: whether the receiver got that request is unknown.
      const lost = {
        ...attemptRow('lost'),
        id: newId('wha', started.getTime() - 1),
        started_at: new Date(started.getTime() - 1).toISOString(),
      };
      await repo.insertAttempt({
        ...lost,
        error: 'worker stopped before the answer was recorded; round sent again',
        finished_at: started.toISOString(),
      });
    }
    const attempt = attemptRow('delivered');

    const t = Math.floor(started.getTime() / 1000);
    const result = await sender.send({
      url: endpoint.url,
      body: delivery.payload,
      signal: input.signal,
      headers: {
        [DELIVERY_HEADERS.signature]: signWebhookPayload(delivery.payload, signingSecrets(box, endpoint, started, open), t),
        [DELIVERY_HEADERS.deliveryId]: delivery.id,
        [DELIVERY_HEADERS.event]: delivery.event_kind,
        [DELIVERY_HEADERS.attempt]: String(attemptNumber(round)),
      },
    });
    if (input.signal?.aborted) return null; // stopped hard: write nothing; the lease takeback re-runs this round
    // Re-inserted so the map's first key is the endpoint heard from least recently (the one dropped).
    answeredInTime.delete(endpoint.id);
    if (answeredInTime.size >= KNOWN_ENDPOINTS) answeredInTime.delete(answeredInTime.keys().next().value!);
    answeredInTime.set(endpoint.id, result.durationMs < sendTimeoutMs / 2);

    const finished = clock.now();
    const retriesLeft = !manual && !delivery.is_test && !result.ok && !result.gone && round < retrySchedule.length;
    const next = retriesLeft ? new Date(finished.getTime() + retryDelayMs(retrySchedule, round, result.retryAfterMs)) : null;
    const status = result.ok ? 'delivered' : next ? 'retrying' : 'failed';
    metrics.webhookDeliveries.inc({ outcome: status === 'retrying' ? 'retry' : status });
    const error = cut(result.gone ? `${result.error}: endpoint disabled (410 Gone)` : result.error);
    await db.transaction().execute(async (trx) => {
      await repo.insertAttempt(
        {
          ...attempt,
          status: result.ok ? 'delivered' : 'failed',
          response_code: result.statusCode,
          duration_ms: result.durationMs,
          error,
          next_attempt_at: next?.toISOString() ?? null,
          finished_at: finished.toISOString(),
        },
        trx,
      );
      await repo.recordRound(
        delivery.id,
        {
          status,
          round,
          last_status_code: result.statusCode,
          last_error: error,
          last_duration_ms: result.durationMs,
          next_attempt_at: next?.toISOString() ?? null,
          delivered_at: result.ok ? finished.toISOString() : delivery.delivered_at,
          updated_at: finished.toISOString(),
        },
        trx,
      );
      if (next) {
        await enqueueOutbox(
          trx,
          {
            kind: WEBHOOK_DELIVER_JOB,
            shopId: delivery.shop_id,
            payload: { deliveryId: delivery.id, round: round + 1 },
            runAt: next,
          },
          finished,
        );
      }
      if (result.gone && !delivery.is_test) {
        // The receiver says the URL is gone for good: stop sending there until the owner re-enables it.
        await repo.updateEndpoint(
          endpoint.shop_id,
          endpoint.id,
          { status: 'disabled', disabled_reason: 'GONE', updated_at: finished.toISOString() },
          trx,
        );
        await audit.record(
          {
            shopId: endpoint.shop_id,
            actor: 'system',
            action: 'webhook.endpoint.disable',
            target: endpoint.id,
            detail: { reason: 'GONE', deliveryId: delivery.id },
          },
          trx,
        );
      }
      if (input.completeIn) await input.completeIn(trx);
    });
    return { attemptId: attempt.id, status, result, nextAttemptAt: next };
  }

  /** `result.created`: one delivery per enabled endpoint subscribed to the event's kind. */
  const onResultCreated: OutboxHandler<typeof RESULT_CREATED_JOB> = async (job, ctx) => {
    const p = job.payload;
    if (!p?.transactionId || !p.shopId) return;
    const record = await orNullIfGone(deps.transactions.get(p.shopId, p.transactionId));
    if (!record) return;
    const shop = await orNullIfGone(deps.shops.get(p.shopId)); // an erased shop is gone too
    if (!shop) return;
    const plan = await plans.get(shop.planCode).catch(() => null);
    if (!plan?.webhooks) return; // trial and plans without webhooks get no deliveries
    const now = ctx.now();
    const event = buildEvent(record, now);
    const endpoints = (await repo.enabledEndpointsOf(p.shopId)).filter((endpoint) => endpoint.events.split(',').includes(event.kind));
    if (!endpoints.length) return;
    await db.transaction().execute(async (trx) => {
      for (const endpoint of endpoints) {
        const id = newId('whd', now.getTime());
        const at = now.toISOString();
        const delivery = newDeliveryRow({
          id,
          shop_id: p.shopId,
          endpoint_id: endpoint.id,
          event_id: event.id,
          event_kind: event.kind,
          transaction_id: record.id,
          payload: event.body,
          isTest: false,
          nextAttemptAt: at,
          at,
        });
        await repo.insertDelivery(delivery, trx);
        // Claimed by this worker: the first attempt starts right after this commit, without a claim
        // round trip, and with the rows in hand (no reads: the delivery is the one written here).
        const memo: DeliverMemo = { delivery, endpoint };
        await ctx.enqueueClaimed(trx, { kind: WEBHOOK_DELIVER_JOB, shopId: p.shopId, payload: { deliveryId: id, round: 0 } }, memo);
      }
      await ctx.completeIn(trx);
    });
  };

  /** Whether the endpoint answers in time: its last send did, and none running has taken half a timeout. */
  const inTime = (endpointId: string, starts: number[]): boolean =>
    answeredInTime.get(endpointId) === true && !(starts.length && performance.now() - starts[0] >= sendTimeoutMs / 2);
  /**
   * Whether a send to this endpoint must wait: it is at the limit of any endpoint (endpointSends), or at
   * the slow endpoints' (slowEndpointSends) and not known to answer in time (its last send was slow, it
   * has not answered yet, or its oldest running send has taken half a timeout).
   */
  const limited = (endpointId: string, starts: number[]): boolean =>
    starts.length >= maxSends || (starts.length >= slowSends && !inTime(endpointId, starts));

  /**
   * A send to this endpoint ended: the rounds deferred for it run now instead of at their fallback time,
   * as many as it may have running once it answers in time again, else one per freed slot. Best effort:
   * a round not moved (a database blip, another process's round) runs at its fallback time.
   */
  const releaseDeferred = (endpointId: string, starts: number[]) => {
    const ids = deferred.get(endpointId);
    if (!ids) return;
    const release = ids.splice(0, inTime(endpointId, starts) ? Math.max(1, maxSends - starts.length) : 1);
    if (ids.length === 0) deferred.delete(endpointId);
    const now = clock.now();
    for (const id of release) void expediteOutboxJob(db, id, now).catch(() => undefined);
  };
  /** A deferred round is running (released, or at its fallback time): it no longer waits for a release. */
  const forgetDeferred = (endpointId: string, jobId: string) => {
    const ids = deferred.get(endpointId);
    const i = ids ? ids.indexOf(jobId) : -1;
    if (i < 0) return;
    ids!.splice(i, 1);
    if (ids!.length === 0) deferred.delete(endpointId);
  };

  /** `webhook.deliver`: one attempt round of one delivery. */
  const onDeliver: OutboxHandler<typeof WEBHOOK_DELIVER_JOB> = async (job, ctx) => {
    const p = job.payload;
    // The first round straight after the fan-out has its rows from it: the delivery was written in
    // the job's own transaction and the endpoint read as enabled just before.
    const memo = job.memo as DeliverMemo | undefined;
    const fresh = memo?.delivery.id === p?.deliveryId ? memo : undefined;
    const delivery = fresh?.delivery ?? (await repo.deliveryById(p?.deliveryId ?? ''));
    // Stale jobs (already delivered, failed or cancelled meanwhile) do nothing.
    if (!delivery || !['pending', 'retrying'].includes(delivery.status)) return;
    const endpoint = fresh?.endpoint ?? (await repo.endpoint(delivery.shop_id, delivery.endpoint_id));
    if (!endpoint || endpoint.status !== 'enabled') {
      await db.transaction().execute(async (trx) => {
        await repo.cancelDelivery(delivery.id, endpoint ? 'endpoint disabled' : 'endpoint deleted', ctx.now().toISOString(), trx);
        await ctx.completeIn(trx);
      });
      return;
    }
    forgetDeferred(endpoint.id, job.id);
    const starts = sending.get(endpoint.id) ?? [];
    if (limited(endpoint.id, starts)) {
      // Hand the slot back: the same round runs again when a running send to this endpoint ends
      // (releaseDeferred), or after about two timeouts if that is not seen here: the process stopped,
      // or the round was put back by another process (no attempt is recorded, so its attempt number and
      // retries are unchanged). Not sooner: a silent endpoint's waiting rounds would all be claimed and
      // put back again every timeout, a transaction each.
      const now = ctx.now();
      const runAt = new Date(now.getTime() + Math.round(2 * sendTimeoutMs * (1 + Math.random() * 0.2)));
      const id = await db.transaction().execute(async (trx) => {
        const next = await enqueueOutbox(trx, { kind: WEBHOOK_DELIVER_JOB, shopId: delivery.shop_id, payload: p, runAt }, now);
        await ctx.completeIn(trx);
        return next;
      });
      if (deferred.has(endpoint.id)) deferred.get(endpoint.id)!.push(id);
      else deferred.set(endpoint.id, [id]);
      // A send that ended while this round was being put back released nothing: look again.
      if (!limited(endpoint.id, sending.get(endpoint.id) ?? [])) releaseDeferred(endpoint.id, sending.get(endpoint.id) ?? []);
      return;
    }
    const start = performance.now();
    starts.push(start);
    sending.set(endpoint.id, starts);
    try {
      await runAttempt({
        delivery,
        endpoint,
        round: p.round ?? 0,
        manual: !!p.manual,
        workerId: ctx.workerId,
        signal: ctx.signal,
        completeIn: ctx.completeIn,
        takenBack: job.takenBack,
      });
    } finally {
      starts.splice(starts.indexOf(start), 1);
      if (starts.length === 0) sending.delete(endpoint.id);
      releaseDeferred(endpoint.id, starts);
    }
  };

  /** A delivery job the worker gave up on (it kept crashing or hanging): the delivery is failed, so the owner can redeliver it. */
  const onDeliverFailed: NonNullable<OutboxFinalFailureHandlers[typeof WEBHOOK_DELIVER_JOB]> = async (job, error) => {
    const p = job.payload;
    await repo.failUnsent(p?.deliveryId ?? '', `delivery could not be attempted: ${error}`.slice(0, 500), clock.now().toISOString());
  };

  return {
    /** Automatic retries after the first try (the spec's 5 by default). */
    retries: retrySchedule.length,
    runAttempt,
    handlers: { [RESULT_CREATED_JOB]: onResultCreated, [WEBHOOK_DELIVER_JOB]: onDeliver } satisfies OutboxHandlers,
    onFinalFailure: { [WEBHOOK_DELIVER_JOB]: onDeliverFailed } satisfies OutboxFinalFailureHandlers,
  };
}
export type WebhookDelivery = ReturnType<typeof createWebhookDelivery>;
