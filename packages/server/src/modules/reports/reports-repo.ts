import type { Db } from '../../db/db.js';

/** Data access of the reports module: the only place that names `daily_summaries` (one row per shop and local day). */
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
  };
}
export type ReportsRepo = ReturnType<typeof createReportsRepo>;
