import { Type, type Static } from 'typebox';
import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';
import { deleteInBatches } from '../../db/batched-delete.js';
import { enqueueOutbox } from '../../outbox/outbox-repo.js';
import { defineOutboxJob } from '../../outbox/outbox-registry.js';
import type { LineDeliveryRepo } from './line-delivery-repo.js';
import { sanitizeLineEvent, type LineEvent } from './line-event-types.js';

export const LINE_EVENT_JOB = 'line.event';
/** How long a webhook event id is kept for dedupe (LINE redelivers within a much shorter window). */
export const LINE_EVENT_RETENTION_DAYS = 7;
export interface LineEventJobPayload {
  lineChannelId: string;
  event: LineEvent;
}

/**
 * The stored shape of a `line.event` payload: what `sanitizeLineEvent` keeps. Handlers read it as the
 * SDK-typed `LineEvent` (line-event-types.ts); `ingest` checks at compile time that it fits this schema.
 */
const Str = Type.String({ minLength: 1 });
export const LineEventJobSchema = Type.Object({
  lineChannelId: Str,
  event: Type.Object({
    type: Str,
    mode: Type.Optional(Type.String()),
    timestamp: Type.Number(),
    webhookEventId: Str,
    deliveryContext: Type.Optional(Type.Object({ isRedelivery: Type.Boolean() })),
    replyToken: Type.Optional(Type.String()),
    source: Type.Optional(
      Type.Object({
        type: Type.Union([Type.Literal('user'), Type.Literal('group'), Type.Literal('room')]),
        userId: Type.Optional(Type.String()),
        groupId: Type.Optional(Type.String()),
        roomId: Type.Optional(Type.String()),
      }),
    ),
    message: Type.Optional(
      Type.Object({
        id: Str,
        type: Str,
        text: Type.Optional(Type.String()),
        contentProvider: Type.Optional(Type.Object({ type: Type.String(), originalContentUrl: Type.Optional(Type.String()) })),
      }),
    ),
  }),
});
defineOutboxJob(LINE_EVENT_JOB, LineEventJobSchema);

declare module '../../outbox/outbox-types.js' {
  interface OutboxJobs {
    'line.event': LineEventJobPayload;
  }
}

/**
 * The inbound event log: each webhook event stored once (deduplicated by webhookEventId: LINE
 * redelivers) with one outbox job per new event, and old dedupe rows pruned.
 */
export function createLineEventLog(deps: { db: Db; clock: Clock; delivery: Pick<LineDeliveryRepo, 'insertEvent' | 'deleteEventsBefore'> }) {
  const { db, clock, delivery } = deps;
  return {
    /**
     * Stores each new event and enqueues its `line.event` job in the same transaction, so the webhook
     * answers before any slow work starts. Returns how many events were new.
     */
    async ingest(channel: { id: string; shop_id: string }, events: unknown[]): Promise<number> {
      let fresh = 0;
      const now = clock.now();
      await db.transaction().execute(async (trx) => {
        for (const rawEvent of events) {
          const event = sanitizeLineEvent(rawEvent);
          if (!event) continue;
          if (!(await delivery.insertEvent(event.webhookEventId, channel.id, now.toISOString(), trx))) continue;
          const payload = { lineChannelId: channel.id, event } satisfies LineEventJobPayload & Static<typeof LineEventJobSchema>;
          await enqueueOutbox(trx, { kind: LINE_EVENT_JOB, shopId: channel.shop_id, payload }, now);
          fresh++;
        }
      });
      return fresh;
    },

    /** Dedupe rows older than LINE's redelivery window are useless; keep a week. In bounded batches (`renew` between them). */
    async prune(renew?: () => Promise<void>, olderThanDays = LINE_EVENT_RETENTION_DAYS): Promise<number> {
      const cutoff = new Date(clock.now().getTime() - olderThanDays * 86_400_000).toISOString();
      return deleteInBatches((limit) => delivery.deleteEventsBefore(cutoff, limit), renew);
    },
  };
}
export type LineEventLog = ReturnType<typeof createLineEventLog>;
