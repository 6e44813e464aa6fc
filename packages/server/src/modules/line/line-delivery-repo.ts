import { deleteOldest } from '../../db/batched-delete.js';
import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';
import { periodOf } from '../../lib/period.js';
import { enqueueOutbox } from '../../outbox/outbox-repo.js';
import { OWNER_ALERT_JOB, type OwnerAlertJob } from '../mail/mail-owner-alerts.js';
import { deleteShopRows, type ShopPurge } from '../../db/shop-rows.js';

/**
 * Data access of the delivery tables: `line_events` (webhook dedupe, and what an event job already did,
 * migration 0007, so a re-run answers exactly what the first run would have: the record the event's
 * image produced, whether this event created it, how far the answer got), `line_push_usage` (the
 * official account's pushes per month) and `line_notices` (once-only marks, e.g. the monthly limit).
 */
export type AnswerState = 'replied' | 'pushed' | 'uncertain';
export interface EventOutcome {
  transactionId: string | null;
  createdRecord: boolean;
  answerState: AnswerState | null;
}

export const MONTHLY_LIMIT_NOTICE = (lineChannelId: string) => `LINE_MONTHLY_LIMIT:${lineChannelId}`;

export function createLineDeliveryRepo(deps: { db: Db; clock: Clock; timeZone: string }) {
  const { db, clock } = deps;
  const period = () => periodOf(clock.now(), deps.timeZone).periodMonth;

  /** Once-only marks (alerts once per period). Returns true when this call set the mark. */
  async function markNotice(shopId: string, notice: string, markPeriod: string, trx: Db = db): Promise<boolean> {
    const r = await trx
      .insertInto('line_notices')
      .values({ shop_id: shopId, notice, period: markPeriod, created_at: clock.now().toISOString() })
      .onConflict((oc) => oc.columns(['shop_id', 'notice', 'period']).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async function alertOnce(shopId: string, notice: string, markPeriod: string, payload: OwnerAlertJob): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      if (!(await markNotice(shopId, notice, markPeriod, trx))) return false;
      await enqueueOutbox(trx, { kind: OWNER_ALERT_JOB, shopId, payload }, clock.now());
      return true;
    });
  }

  return {
    period,
    markNotice,
    async hasNotice(shopId: string, notice: string, markPeriod: string): Promise<boolean> {
      return !!(await db
        .selectFrom('line_notices')
        .select('shop_id')
        .where('shop_id', '=', shopId)
        .where('notice', '=', notice)
        .where('period', '=', markPeriod)
        .executeTakeFirst());
    },
    /** Webhook dedupe (LINE redelivers): true when this event id is new. */
    async insertEvent(webhookEventId: string, lineChannelId: string, receivedAt: string, trx: Db): Promise<boolean> {
      const r = await trx
        .insertInto('line_events')
        .values({ webhook_event_id: webhookEventId, line_channel_id: lineChannelId, received_at: receivedAt })
        .onConflict((oc) => oc.column('webhook_event_id').doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
    },
    /** Deletes at most `limit` event ids received before `cutoff` (the oldest first); returns how many. */
    async deleteEventsBefore(cutoff: string, limit: number): Promise<number> {
      return deleteOldest(db, { table: 'line_events', key: 'webhook_event_id', column: 'received_at' }, cutoff, limit);
    },
    async outcome(webhookEventId: string): Promise<EventOutcome> {
      const r = await db
        .selectFrom('line_events')
        .select(['transaction_id', 'created_record', 'answer_state'])
        .where('webhook_event_id', '=', webhookEventId)
        .executeTakeFirst();
      return {
        transactionId: r?.transaction_id ?? null,
        createdRecord: !!r?.created_record,
        answerState: (r?.answer_state as AnswerState | null) ?? null,
      };
    },
    async saveRecord(webhookEventId: string, transactionId: string, created: boolean): Promise<void> {
      // Written once: a second run never turns "created by this event" into "seen before".
      await db
        .updateTable('line_events')
        .set({ transaction_id: transactionId, created_record: created ? 1 : 0 })
        .where('webhook_event_id', '=', webhookEventId)
        .where('transaction_id', 'is', null)
        .execute();
    },
    async setAnswerState(webhookEventId: string, state: AnswerState): Promise<void> {
      await db.updateTable('line_events').set({ answer_state: state }).where('webhook_event_id', '=', webhookEventId).execute();
    },
    async countPush(lineChannelId: string): Promise<void> {
      const ts = clock.now().toISOString();
      await db
        .insertInto('line_push_usage')
        .values({ line_channel_id: lineChannelId, period: period(), pushes: 1, updated_at: ts })
        .onConflict((oc) =>
          oc.columns(['line_channel_id', 'period']).doUpdateSet((eb) => ({ pushes: eb('line_push_usage.pushes', '+', 1), updated_at: ts })),
        )
        .execute();
    },
    /** The channel's push counts, every month: its earlier holder's pushes are not the new shop's. */
    async forgetPushUsage(lineChannelId: string, trx: Db): Promise<void> {
      await trx.deleteFrom('line_push_usage').where('line_channel_id', '=', lineChannelId).execute();
    },
    async pushUsage(lineChannelIds: string[]): Promise<Map<string, number>> {
      if (!lineChannelIds.length) return new Map();
      const rows = await db
        .selectFrom('line_push_usage')
        .select(['line_channel_id', 'pushes'])
        .where('line_channel_id', 'in', lineChannelIds)
        .where('period', '=', period())
        .execute();
      return new Map(rows.map((r) => [r.line_channel_id, Number(r.pushes)]));
    },
    async monthlyLimitAt(shopId: string, lineChannelId: string): Promise<string | null> {
      const r = await db
        .selectFrom('line_notices')
        .select('created_at')
        .where('shop_id', '=', shopId)
        .where('notice', '=', MONTHLY_LIMIT_NOTICE(lineChannelId))
        .where('period', '=', period())
        .executeTakeFirst();
      return r?.created_at ?? null;
    },
    /**
     * Sets a once-only mark and, in the same transaction, enqueues the owner alert it stands for: the
     * owner hears it once per mark however many events hit it. Returns true the first time.
     */
    alertOnce,
    /**
     * LINE said the OA's monthly message allowance is used up: mark it for the month and tell the
     * owner once (e-mail; a LINE push would hit the same wall). Returns true the first time.
     */
    markMonthlyLimit(shopId: string, lineChannelId: string): Promise<boolean> {
      return alertOnce(shopId, MONTHLY_LIMIT_NOTICE(lineChannelId), period(), {
        type: 'LINE_MONTHLY_LIMIT',
        shopId,
        detail: { lineChannelId },
      });
    },
    /** LINE lets the OA push again (the owner raised its plan): the mark goes; a new refusal marks and tells anew. */
    async clearMonthlyLimit(shopId: string, lineChannelId: string): Promise<void> {
      await db
        .deleteFrom('line_notices')
        .where('shop_id', '=', shopId)
        .where('notice', '=', MONTHLY_LIMIT_NOTICE(lineChannelId))
        .where('period', '=', period())
        .execute();
    },
  };
}
export type LineDeliveryRepo = ReturnType<typeof createLineDeliveryRepo>;

/**
 * Purge of an erased shop (housekeeping, composed in container.ts): this module's delivery rows of the
 * shop. `line_events` and `line_push_usage` have no shop_id: they hang off the shop's channels, so they
 * go by the channel ids while the channel rows still exist (runs before purgeLineLinksOfShop).
 */
export const purgeLineDeliveryOfShop: ShopPurge = async (trx, shopId) => {
  const channelsOfShop = trx.selectFrom('line_channels').select('id').where('shop_id', '=', shopId);
  await trx.deleteFrom('line_events').where('line_channel_id', 'in', channelsOfShop).execute();
  await trx.deleteFrom('line_push_usage').where('line_channel_id', 'in', channelsOfShop).execute();
  await deleteShopRows(trx, shopId, ['line_notices']);
};
