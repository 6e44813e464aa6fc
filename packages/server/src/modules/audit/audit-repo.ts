import { deleteOldest } from '../../db/batched-delete.js';
import type { Db } from '../../db/db.js';
import type { AuditLogTable } from '../../db/db-schema.js';

/** The SQL of the audit log (table `audit_log`); no other file names the table. */
export function createAuditRepo(db: Db) {
  return {
    /** Inside the caller's transaction when given, so an entry commits with the change it describes. */
    async insert(row: AuditLogTable, trx: Db = db): Promise<void> {
      await trx.insertInto('audit_log').values(row).execute();
    },
    async listByShop(shopId: string, limit: number): Promise<AuditLogTable[]> {
      return db
        .selectFrom('audit_log')
        .selectAll()
        .where('shop_id', '=', shopId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },
    async listByActor(shopId: string, actor: string, limit: number): Promise<AuditLogTable[]> {
      return db
        .selectFrom('audit_log')
        .selectAll()
        .where('shop_id', '=', shopId)
        .where('actor', '=', actor)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },
    /** Deletes at most `limit` entries created before `cutoff` (the oldest first); returns how many. */
    async deleteOlderThan(cutoff: string, limit: number): Promise<number> {
      return deleteOldest(db, { table: 'audit_log', key: 'id', column: 'created_at' }, cutoff, limit);
    },
  };
}
