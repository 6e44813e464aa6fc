import { sql } from 'kysely';
import type { Db } from './db.js';

/**
 * Deletes every row of a shop from the given tables, in order (children before parents), inside the
 * caller's transaction. Each module calls it for its own tables when an erased shop is purged
 * (housekeeping runs the modules' purge steps; container.ts lists them).
 */
export async function deleteShopRows(trx: Db, shopId: string, tables: readonly string[]): Promise<void> {
  for (const table of tables) await sql`delete from ${sql.table(table)} where shop_id = ${shopId}`.execute(trx);
}

/** One module's part of purging an erased shop: deletes its rows of that shop inside `trx`. */
export type ShopPurge = (trx: Db, shopId: string) => Promise<void>;
