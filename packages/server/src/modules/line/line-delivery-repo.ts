import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';
import { periodOf } from '../../lib/period.js';
import { enqueueOutbox, OUTBOX_KINDS, type OwnerAlertPayload } from '../../outbox/outbox-repo.js';
import { recordFromRow, type TransactionRecord } from '../transactions/transaction-record.js';

/**
 * What a LINE event job already did (migration 0007), so a re-run answers exactly what the first
 * run would have: the record the event's image produced and whether this event created it, and how
 * far the answer got. Plus the official account's push count per month and its monthly-limit mark.
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

  return {
    period,
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
    /** The shop's record by id (shop-scoped), as the event that created it (or not) saw it. */
    async record(shopId: string, transactionId: string, created: boolean): Promise<TransactionRecord | null> {
      const row = await db
        .selectFrom('transactions')
        .selectAll()
        .where('id', '=', transactionId)
        .where('shop_id', '=', shopId)
        .executeTakeFirst();
      return row ? recordFromRow(row, !created) : null;
    },
    /** A DUPLICATE's first use: the earliest SUCCESS of the same transfer in the same shop and environment. */
    async original(shopId: string, r: TransactionRecord): Promise<{ amount: number | null; createdAt: string } | null> {
      if (!r.transRef) return null;
      const row = await db
        .selectFrom('transactions')
        .select(['amount_satang', 'created_at'])
        .where('shop_id', '=', shopId)
        .where('trans_ref', '=', r.transRef)
        .where('environment', '=', r.environment)
        .where('status', '=', 'SUCCESS')
        .where('id', '!=', r.id)
        .orderBy('created_at')
        .limit(1)
        .executeTakeFirst();
      return row ? { amount: row.amount_satang === null ? null : Number(row.amount_satang) / 100, createdAt: row.created_at } : null;
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
     * LINE said the OA's monthly message allowance is used up: mark it for the month and tell the
     * owner once (e-mail; a LINE push would hit the same wall). Returns true the first time.
     */
    async markMonthlyLimit(shopId: string, lineChannelId: string): Promise<boolean> {
      const now = clock.now();
      return db.transaction().execute(async (trx) => {
        const r = await trx
          .insertInto('line_notices')
          .values({ shop_id: shopId, notice: MONTHLY_LIMIT_NOTICE(lineChannelId), period: period(), created_at: now.toISOString() })
          .onConflict((oc) => oc.columns(['shop_id', 'notice', 'period']).doNothing())
          .executeTakeFirst();
        if (Number(r.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
        const payload: OwnerAlertPayload = { type: 'LINE_MONTHLY_LIMIT', shopId, detail: { lineChannelId } };
        await enqueueOutbox(trx, { kind: OUTBOX_KINDS.OWNER_ALERT, shopId, payload }, now);
        return true;
      });
    },
  };
}
export type LineDeliveryRepo = ReturnType<typeof createLineDeliveryRepo>;
