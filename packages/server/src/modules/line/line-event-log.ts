import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';
import { enqueueOutbox } from '../../outbox/outbox-repo.js';
import type { LineDeliveryRepo } from './line-delivery-repo.js';
import { sanitizeLineEvent, type LineEvent } from './line-event-types.js';

export const LINE_EVENT_JOB = 'line.event';
export interface LineEventJobPayload {
  lineChannelId: string;
  event: LineEvent;
}

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
          const payload: LineEventJobPayload = { lineChannelId: channel.id, event };
          await enqueueOutbox(trx, { kind: LINE_EVENT_JOB, shopId: channel.shop_id, payload }, now);
          fresh++;
        }
      });
      return fresh;
    },

    /** Dedupe rows older than LINE's redelivery window are useless; keep a week. */
    async prune(olderThanDays = 7): Promise<number> {
      return delivery.deleteEventsBefore(new Date(clock.now().getTime() - olderThanDays * 86_400_000).toISOString());
    },
  };
}
export type LineEventLog = ReturnType<typeof createLineEventLog>;
