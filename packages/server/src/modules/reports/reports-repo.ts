import type { Insertable } from 'kysely';
import type { Db } from '../../db/db.js';
import { deleteShopRows, type ShopPurge } from '../../db/shop-rows.js';
import type { ExportTicketsTable } from './reports-tables.js';

/**
 * Data access of the reports module: the only place that names `daily_summaries` (one row per shop and
 * local day) and `export_tickets` (one-time download tickets, hash only).
 */
export function createReportsRepo(db: Db) {
  return {
    /** Shops that already have their summary row for `day` (queued, sent or skipped). */
    async shopsWithSummary(day: string): Promise<Set<string>> {
      const rows = await db.selectFrom('daily_summaries').select('shop_id').where('day', '=', day).execute();
      return new Set(rows.map((r) => r.shop_id));
    },
    /** Inserts (shop, day) as queued; false when another scheduler got there first (the primary key decides). */
    async insertQueued(trx: Db, shopId: string, day: string, atIso: string): Promise<boolean> {
      const r = await trx
        .insertInto('daily_summaries')
        .values({ shop_id: shopId, day, status: 'queued', job_id: null, sent_line: 0, sent_email: 0, created_at: atIso, updated_at: atIso })
        .onConflict((oc) => oc.columns(['shop_id', 'day']).doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
    },
    async setJob(trx: Db, shopId: string, day: string, jobId: string): Promise<void> {
      await trx.updateTable('daily_summaries').set({ job_id: jobId }).where('shop_id', '=', shopId).where('day', '=', day).execute();
    },
    get(shopId: string, day: string) {
      return db.selectFrom('daily_summaries').selectAll().where('shop_id', '=', shopId).where('day', '=', day).executeTakeFirst();
    },
    /** Queued -> sent or skipped, inside the job's completion transaction (a second run finds it done). */
    async finish(trx: Db, shopId: string, day: string, result: { status: string; line: number; email: number; atIso: string }) {
      await trx
        .updateTable('daily_summaries')
        .set({ status: result.status, sent_line: result.line, sent_email: result.email, updated_at: result.atIso })
        .where('shop_id', '=', shopId)
        .where('day', '=', day)
        .where('status', '=', 'queued')
        .execute();
    },
    /** Stores a new ticket and drops the shop's expired ones (used ones expire within the minute too). */
    async insertTicket(row: Insertable<ExportTicketsTable>): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('export_tickets').where('shop_id', '=', row.shop_id).where('expires_at', '<=', row.created_at).execute();
        await trx.insertInto('export_tickets').values(row).execute();
      });
    },
    /**
     * Single use: marks the shop's unexpired, unused ticket with this hash used and returns it, for
     * exactly one caller (the conditional update decides); undefined for any other ticket alike.
     */
    async takeTicket(shopId: string, tokenHash: string, nowIso: string) {
      const r = await db
        .updateTable('export_tickets')
        .set({ used_at: nowIso })
        .where('shop_id', '=', shopId)
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', nowIso)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return undefined;
      return db
        .selectFrom('export_tickets')
        .selectAll()
        .where('shop_id', '=', shopId)
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
    },
  };
}
/** Purge of an erased shop (housekeeping, composed in container.ts): the shop's summary marks and export tickets. */
export const purgeReportsOfShop: ShopPurge = (trx, shopId) => deleteShopRows(trx, shopId, ['daily_summaries', 'export_tickets']);
export type ReportsRepo = ReturnType<typeof createReportsRepo>;
