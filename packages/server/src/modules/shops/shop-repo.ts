import { preparedQuery, type Db } from '../../db/db.js';
import type { ShopsTable } from '../../db/db-schema.js';

/** The name of a purged shop's tombstone row. */
export const ERASED_NAME = '(erased)';

/**
 * Takes the shop's row lock inside a transaction with a no-op write (a row lock on PostgreSQL, the
 * write lock on SQLite), so a count-then-insert against a plan limit cannot race another node.
 */
export async function lockShopRow(trx: Db, shopId: string): Promise<void> {
  await trx
    .updateTable('shops')
    .set((eb) => ({ name: eb.ref('name') }))
    .where('id', '=', shopId)
    .execute();
}

/** A live shop by id: API-key authentication and every webhook read one (SQL built once, see preparedQuery). */
const liveQuery = preparedQuery((db: Db, id: string) =>
  db.selectFrom('shops').selectAll().where('id', '=', id).where('deleted_at', 'is', null),
);

/** The SQL of the shops table; no other file names it (other modules call the shops service). */
export function createShopRepo(db: Db) {
  return {
    /** A shop that is not erased, or undefined. */
    async getLive(id: string): Promise<ShopsTable | undefined> {
      return (await liveQuery(db, id))[0];
    },
    async insert(row: ShopsTable, trx: Db = db): Promise<void> {
      await trx.insertInto('shops').values(row).execute();
    },
    async update(id: string, set: Partial<ShopsTable>, trx: Db = db): Promise<void> {
      await trx.updateTable('shops').set(set).where('id', '=', id).execute();
    },
    async erasedBefore(cutoff: string): Promise<string[]> {
      const rows = await db
        .selectFrom('shops')
        .select('id')
        .where('deleted_at', 'is not', null)
        .where('deleted_at', '<', cutoff)
        .where('name', '!=', ERASED_NAME)
        .execute();
      return rows.map((r) => r.id);
    },
    async listLive(): Promise<ShopsTable[]> {
      return db.selectFrom('shops').selectAll().where('deleted_at', 'is', null).execute();
    },
    async trialsEnding(after: string, until: string): Promise<ShopsTable[]> {
      return db
        .selectFrom('shops')
        .selectAll()
        .where('state', '=', 'trial')
        .where('deleted_at', 'is', null)
        .where('trial_ends_at', 'is not', null)
        .where('trial_ends_at', '<=', until)
        .where('trial_ends_at', '>', after)
        .execute();
    },
  };
}
